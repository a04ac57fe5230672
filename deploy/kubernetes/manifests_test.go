package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The parts of the Kubernetes objects the test looks at.
type (
	object struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name      string            `yaml:"name"`
			Namespace string            `yaml:"namespace"`
			Labels    map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec spec `yaml:"spec"`
		file string
	}
	spec struct {
		// Job
		CompletionMode string       `yaml:"completionMode"`
		Completions    *int         `yaml:"completions"`
		Parallelism    *int         `yaml:"parallelism"`
		Template       *podTemplate `yaml:"template"`
		// Deployment
		Replicas *int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		// Service (selector is a plain map there)
		ServiceSelector map[string]string `yaml:"-"`
		Ports           []struct {
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		// PersistentVolumeClaim
		AccessModes []string `yaml:"accessModes"`
		// Pod
		podSpec `yaml:",inline"`
	}
	podTemplate struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec podSpec `yaml:"spec"`
	}
	podSpec struct {
		RestartPolicy string      `yaml:"restartPolicy"`
		Containers    []container `yaml:"containers"`
		Volumes       []struct {
			Name string `yaml:"name"`
			PVC  *struct {
				ClaimName string `yaml:"claimName"`
			} `yaml:"persistentVolumeClaim"`
		} `yaml:"volumes"`
	}
	container struct {
		Name    string   `yaml:"name"`
		Image   string   `yaml:"image"`
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Env     []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
)

// manifests parses every YAML document of the directory.
func manifests(t *testing.T) map[string]object {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string]object{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for i := 1; ; i++ {
			var node yaml.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s, document %d: %v", f, i, err)
			}
			var o object
			if err := node.Decode(&o); err != nil {
				t.Fatalf("%s, document %d: %v", f, i, err)
			}
			if o.Kind == "Service" {
				var s struct {
					Spec struct {
						Selector map[string]string `yaml:"selector"`
					} `yaml:"spec"`
				}
				_ = node.Decode(&s)
				o.Spec.ServiceSelector = s.Spec.Selector
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s, document %d: apiVersion, kind and metadata.name are required", f, i)
			}
			if o.Metadata.Namespace != "default" {
				t.Errorf("%s: %s/%s is in namespace %q; the Service URL names default", f, o.Kind, o.Metadata.Name, o.Metadata.Namespace)
			}
			key := o.Kind + "/" + o.Metadata.Name
			if _, dup := out[key]; dup {
				t.Fatalf("%s: %s defined twice", f, key)
			}
			o.file = f
			out[key] = o
		}
	}
	return out
}

func get(t *testing.T, objs map[string]object, key string) object {
	t.Helper()
	o, ok := objs[key]
	if !ok {
		t.Fatalf("no %s among the manifests", key)
	}
	return o
}

// script is the shell script a container runs with /bin/sh -c.
func script(t *testing.T, c container) string {
	t.Helper()
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
		t.Fatalf("container %s does not run a /bin/sh -c script: %q %q", c.Name, c.Command, c.Args)
	}
	return c.Args[0]
}

// mountsResults checks that the pod mounts the results claim at /results.
func mountsResults(t *testing.T, name string, p podSpec) {
	t.Helper()
	vol := ""
	for _, v := range p.Volumes {
		if v.PVC != nil && v.PVC.ClaimName == "tbbench-results" {
			vol = v.Name
		}
	}
	for _, m := range p.Containers[0].VolumeMounts {
		if vol != "" && m.Name == vol && m.MountPath == "/results" {
			return
		}
	}
	t.Errorf("%s does not mount the tbbench-results claim at /results", name)
}

func TestManifestsKinds(t *testing.T) {
	objs := manifests(t)
	want := []string{"Deployment/thoughtbox", "Service/thoughtbox", "PersistentVolumeClaim/tbbench-results",
		"Deployment/thoughtbox-stateless", "Service/thoughtbox-stateless", "PersistentVolumeClaim/thoughtbox-data",
		"Job/tbbench-load", "Job/tbbench-merge", "Pod/tbbench-results-reader"}
	for _, k := range want {
		get(t, objs, k)
	}
	if len(objs) != len(want) {
		t.Errorf("%d objects, want %d: %v", len(objs), len(want), objs)
	}
}

// segmentFlag matches the --segment flag of the load Job: i from the Job's
// completion index, n a number.
var segmentFlag = regexp.MustCompile(`--segment \$\(\(JOB_COMPLETION_INDEX\+1\)\)/(\d+)(\s|$)`)

func TestLoadJobRunsEverySegmentAtOnce(t *testing.T) {
	objs := manifests(t)
	job := get(t, objs, "Job/tbbench-load")
	s := job.Spec
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		t.Fatalf("completions and parallelism must be set and equal: %v %v", s.Completions, s.Parallelism)
	}
	if s.Template == nil || len(s.Template.Spec.Containers) != 1 {
		t.Fatal("the load Job needs one container")
	}
	if s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q: a segment run again would send its load twice", s.Template.Spec.RestartPolicy)
	}
	sh := script(t, s.Template.Spec.Containers[0])
	m := segmentFlag.FindStringSubmatch(sh)
	if m == nil {
		t.Fatalf("no --segment $((JOB_COMPLETION_INDEX+1))/n in:\n%s", sh)
	}
	if n, _ := strconv.Atoi(m[1]); n != *s.Completions {
		t.Errorf("--segment .../%d but completions = parallelism = %d", n, *s.Completions)
	}
	if !strings.Contains(sh, fmt.Sprintf(`-ge %d ]`, *s.Completions)) {
		t.Errorf("the start barrier does not wait for %d segments:\n%s", *s.Completions, sh)
	}
	for _, want := range []string{"tbbench load --tier regression", "--url http://thoughtbox.default.svc:1731/mcp",
		"--direct", "--seed 42", "--out /results", "--run-id segment-$((JOB_COMPLETION_INDEX+1))"} {
		if !strings.Contains(sh, want) {
			t.Errorf("the segment command lacks %q:\n%s", want, sh)
		}
	}
	mountsResults(t, "Job/tbbench-load", s.Template.Spec)

	pvc := get(t, objs, "PersistentVolumeClaim/tbbench-results")
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != "ReadWriteMany" {
		t.Errorf("the results claim's access modes are %v, want ReadWriteMany", pvc.Spec.AccessModes)
	}
}

func TestMergeJobReadsEverySegment(t *testing.T) {
	job := get(t, manifests(t), "Job/tbbench-merge")
	if job.Spec.Template == nil || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("the merge Job needs one container")
	}
	sh := script(t, job.Spec.Template.Spec.Containers[0])
	if !strings.Contains(sh, "tbbench merge --out /results --run-id merged /results/segment-*/load.json") {
		t.Errorf("the merge Job does not merge /results/segment-*/load.json into /results/merged:\n%s", sh)
	}
	if c := job.Spec.Completions; c != nil && *c != 1 {
		t.Errorf("the merge Job runs %d times", *c)
	}
	mountsResults(t, "Job/tbbench-merge", job.Spec.Template.Spec)
}

// The load Job reaches the server at thoughtbox.default.svc:1731: the
// Service must have that name and port and select the Deployment's pods,
// which must listen on every interface.
func TestServiceSelectsTheServer(t *testing.T) {
	objs := manifests(t)
	svc, dep := get(t, objs, "Service/thoughtbox"), get(t, objs, "Deployment/thoughtbox")
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 1731 {
		t.Errorf("Service ports %+v, want 1731", svc.Spec.Ports)
	}
	if dep.Spec.Template == nil || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("the Deployment needs one container")
	}
	if len(svc.Spec.ServiceSelector) == 0 {
		t.Fatal("the Service selects no pods")
	}
	for k, v := range svc.Spec.ServiceSelector {
		if dep.Spec.Template.Metadata.Labels[k] != v || dep.Spec.Selector.MatchLabels[k] != v {
			t.Errorf("the Service selects %s=%s, which the Deployment's pods do not carry", k, v)
		}
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 {
		t.Errorf("replicas %v: MCP sessions live in one process, the Service does not keep them on one pod", dep.Spec.Replicas)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["HOST"] != "0.0.0.0" || env["PORT"] != "1731" {
		t.Errorf("the server's HOST=%q PORT=%q, want 0.0.0.0 and 1731", env["HOST"], env["PORT"])
	}
	named := svc.Spec.Ports[0].TargetPort
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 1731 || (named != "" && named != c.Ports[0].Name) {
		t.Errorf("the Service's target port %q is not the container's port %+v", named, c.Ports)
	}
	for _, o := range objs {
		if o.Spec.Template != nil {
			for _, c := range o.Spec.Template.Spec.Containers {
				if c.Image != "thoughtbox:latest" {
					t.Errorf("%s: image %q, want the image of Dockerfile, thoughtbox:latest", o.file, c.Image)
				}
			}
		}
	}
}

func TestDockerfileBuildsBothCommands(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	d := string(data)
	for _, want := range []string{"FROM golang:1.26 AS build", "./cmd/thoughtbox", "./cmd/tbbench", "HOST=0.0.0.0", "COPY --from=build"} {
		if !strings.Contains(d, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// TestStatelessDeploymentSharesItsStore: the 2026-era deployment runs more
// than one replica, all on one shared durable store (contexts live there,
// spec D26), behind a Service that selects them all.
func TestStatelessDeploymentSharesItsStore(t *testing.T) {
	objs := manifests(t)
	dep, svc := get(t, objs, "Deployment/thoughtbox-stateless"), get(t, objs, "Service/thoughtbox-stateless")
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas < 2 {
		t.Errorf("replicas %v: the 2026-era deployment exists to run several", dep.Spec.Replicas)
	}
	if dep.Spec.Template == nil || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("the Deployment needs one container")
	}
	for k, v := range svc.Spec.ServiceSelector {
		if dep.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the replicas do not carry", k, v)
		}
	}
	c := dep.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if s := env["THOUGHTBOX_STORAGE"]; s != "fs" && s != "sqlite" {
		t.Errorf("THOUGHTBOX_STORAGE=%q: replicas share contexts only through fs or sqlite", s)
	}
	mounted := ""
	for _, m := range c.VolumeMounts {
		if m.MountPath == env["THOUGHTBOX_DATA_DIR"] {
			mounted = m.Name
		}
	}
	claim := ""
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Name == mounted && v.PVC != nil {
			claim = v.PVC.ClaimName
		}
	}
	if claim == "" {
		t.Fatalf("the data dir %q is not on a persistent volume claim", env["THOUGHTBOX_DATA_DIR"])
	}
	pvc := get(t, objs, "PersistentVolumeClaim/"+claim)
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != "ReadWriteMany" {
		t.Errorf("claim %s access modes %v: every replica mounts it, so ReadWriteMany", claim, pvc.Spec.AccessModes)
	}
}
