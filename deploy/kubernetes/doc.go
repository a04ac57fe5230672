// Package kubernetes holds the manifests that scale a tbbench load run out
// over a Kubernetes cluster (an Indexed Job of segments, a merge Job, the
// reference server's Deployment and Service) and the Dockerfile of their
// image; see README.md. The package has no code: its test checks that the
// manifests parse and agree with each other.
package kubernetes
