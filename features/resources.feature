@resources
Feature: Mental models, resources, prompts and completion
  The mental_models operation (15 models, 9 tags), the static resources and
  resource templates, the thought-query templates over a real session (D18),
  the prompts and the completion of their arguments. Errors are judged by
  being errors and by the valid values they list, never by their wording.

  @core
  Scenario: list_tags lists the nine tags in order
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_tags"}
      """
    Then the call succeeds
    And the answer has "count" equal to 9
    And the answer's "tags" names are "debugging, planning, decision-making, risk-analysis, estimation, prioritization, communication, architecture, validation"

  @core
  Scenario: list_models without a filter lists the fifteen models in order
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_models"}
      """
    Then the call succeeds
    And the answer has "count" equal to 15
    And the answer's "models" names are "rubber-duck, five-whys, pre-mortem, assumption-surfacing, steelmanning, trade-off-matrix, fermi-estimation, abstraction-laddering, decomposition, adversarial-thinking, opportunity-cost, constraint-relaxation, time-horizon-shifting, impact-effort-grid, inversion"

  @core
  Scenario Outline: each tag has its models
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_models", "tag": "<tag>"}
      """
    Then the call succeeds
    And the answer has "count" equal to <count>
    And the answer's "models" has <count> items

    Examples:
      | tag             | count |
      | debugging       | 2     |
      | planning        | 6     |
      | decision-making | 4     |
      | risk-analysis   | 3     |
      | estimation      | 1     |
      | prioritization  | 3     |
      | communication   | 2     |
      | architecture    | 3     |
      | validation      | 4     |

  @core
  Scenario: several tags select the models carrying all of them
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_models", "tags": ["planning", "architecture"]}
      """
    Then the call succeeds
    And the answer's "models" names are "decomposition, constraint-relaxation"

  @core
  Scenario: get_model returns a model's markdown
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "get_model", "model": "five-whys"}
      """
    Then the call succeeds
    And the answer's "name" is "five-whys"
    And the answer's "title" is "Five Whys"
    And the answer has "tags" equal to ["debugging", "validation"]

  @core
  Scenario: an unknown model is an error listing the fifteen models
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "get_model", "model": "no-such-model"}
      """
    Then the error lists the valid models

  @core
  Scenario: a missing model name is an error listing the fifteen models
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "get_model"}
      """
    Then the error lists the valid models

  @core
  Scenario: unknown tags are an error naming them and listing the nine tags
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_models", "tags": ["planning", "bogus-tag"]}
      """
    Then the call fails naming "bogus-tag"
    And the error lists the valid tags

  @intent
  Scenario: tags given as a string is an error listing the nine tags
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "list_models", "tags": "planning"}
      """
    Then the error lists the valid tags

  @core
  Scenario: an unknown sub-operation is an error listing the four operations
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "bogus"}
      """
    Then the error lists the valid operations

  @core
  Scenario: the capability graph has 29 entities and 47 relations
    Given a reasoning session at stage cipher_loaded
    When I call "mental_models" with:
      """
      {"operation": "get_capability_graph"}
      """
    Then the call succeeds
    And the answer's "entities" has 29 items
    And the answer's "relations" has 47 items

  @core
  Scenario: resources/list lists the 28 resources in order
    Given a fresh MCP session
    When I list the resources
    Then the list is, in order:
      """
      thoughtbox://init
      system://status
      thoughtbox://notebook/operations
      thoughtbox://patterns-cookbook
      thoughtbox://architecture
      thoughtbox://cipher
      thoughtbox://session-analysis-guide
      thoughtbox://guidance/parallel-verification
      thoughtbox://prompts/evolution-check
      thoughtbox://prompts/subagent-summarize
      thoughtbox://tests/thoughtbox
      thoughtbox://tests/notebook
      thoughtbox://knowledge/stats
      thoughtbox://tests/mental-models
      thoughtbox://tests/knowledge
      thoughtbox://mental-models/operations
      thoughtbox://loops/catalog
      thoughtbox://loops/analytics/refresh
      thoughtbox://mental-models
      thoughtbox://mental-models/debugging
      thoughtbox://mental-models/planning
      thoughtbox://mental-models/decision-making
      thoughtbox://mental-models/risk-analysis
      thoughtbox://mental-models/estimation
      thoughtbox://mental-models/prioritization
      thoughtbox://mental-models/communication
      thoughtbox://mental-models/architecture
      thoughtbox://mental-models/validation
      """

  @core
  Scenario: resources/templates/list lists the eight templates in order
    Given a fresh MCP session
    When I list the resource templates
    Then the list contains, in this order:
      """
      thoughtbox://init/{mode}
      thoughtbox://init/{mode}/{project}
      thoughtbox://init/{mode}/{project}/{task}
      thoughtbox://init/{mode}/{project}/{task}/{aspect}
      thoughtbox://interleaved/{mode}
      thoughtbox://session-analysis-guide
      thoughtbox://mental-models/{tag}/{model}
      thoughtbox://mental-models/{tag}
      """

  @intent
  Scenario: the thought-query templates are listed (D18)
    Given a fresh MCP session
    When I list the resource templates
    Then the list contains, in this order:
      """
      thoughtbox://thoughts/{sessionId}/{type}
      thoughtbox://thoughts/{sessionId}/range/{start}-{end}
      thoughtbox://references/{sessionId}/{thoughtNumber}
      thoughtbox://revisions/{sessionId}/{thoughtNumber}
      """

  @core
  Scenario: the mental-models root and a tag directory
    Given a fresh MCP session
    When I read the resource "thoughtbox://mental-models"
    Then the resource JSON "total_models" is 15
    And the resource JSON "total_tags" is 9
    And the resource JSON "all_models" has 15 items
    When I read the resource "thoughtbox://mental-models/estimation"
    Then the resource JSON "count" is 1
    And the resource JSON "models" has 1 items

  @core
  Scenario: a model read through one of its tags carries front matter
    Given a fresh MCP session
    When I read the resource "thoughtbox://mental-models/estimation/fermi-estimation"
    Then the resource text starts with "---"
    And the resource text contains "name: fermi-estimation"
    And the resource text contains "uri: thoughtbox://mental-models/estimation/fermi-estimation"

  @core
  Scenario: unknown tags, models under another tag and unknown modes are read errors
    Given a fresh MCP session
    When I read the resource "thoughtbox://mental-models/debugging/five-whys"
    Then the resource text contains "five-whys"
    And reading the resource "thoughtbox://interleaved/research" succeeds
    And reading the resource "thoughtbox://mental-models/bogus-tag" fails
    And reading the resource "thoughtbox://mental-models/debugging/fermi-estimation" fails
    And reading the resource "thoughtbox://mental-models/debugging/five-whys/extra" fails
    And reading the resource "thoughtbox://interleaved/bogus-mode" fails

  @core
  Scenario: the interleaved guide of each mode
    Given a fresh MCP session
    When I read the resource "thoughtbox://interleaved/research"
    Then the resource text contains "research"
    When I read the resource "thoughtbox://interleaved/development"
    Then the resource text contains "development"

  @intent
  Scenario: a thought-query template returns the matching thoughts (D18)
    Given a reasoning session at stage cipher_loaded
    When I record the thought "S1|H|—|first hypothesis" with:
      """
      {"thoughtNumber": 1, "totalThoughts": 4, "nextThoughtNeeded": true}
      """
    And I record the thought "S2|E|S1|evidence about [S1]" with:
      """
      {"thoughtNumber": 2, "totalThoughts": 4, "nextThoughtNeeded": true}
      """
    And I record the thought "S3|H|S2|second hypothesis" with:
      """
      {"thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true}
      """
    And I read the resource "thoughtbox://thoughts/{{sid}}/H"
    Then the resource JSON "count" is 2
    And the resource JSON "thoughts" has 2 items
    When I read the resource "thoughtbox://thoughts/{{sid}}/range/2-3"
    Then the resource JSON "count" is 2
    When I read the resource "thoughtbox://references/{{sid}}/1"
    Then the resource JSON "count" is 1

  @intent
  Scenario: revision history returns the thought and its revisions (D18)
    Given a reasoning session at stage cipher_loaded
    When I record thoughts 1 to 2 of 3
    And I revise thought 1 with thought 3
    And I read the resource "thoughtbox://revisions/{{sid}}/1"
    Then the resource JSON "count" is 2

  @core
  Scenario: thought queries refuse a backwards range and an unknown session
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I read the resource "thoughtbox://thoughts/{{sid}}/range/1-2"
    Then the resource text contains "{{nonce}}"
    And reading the resource "thoughtbox://thoughts/{{sid}}/range/3-1" fails
    And reading the resource "thoughtbox://thoughts/no-such-session/H" fails

  @core
  Scenario: prompts/list lists the twelve prompts in order
    Given a fresh MCP session
    When I list the prompts
    Then the list is, in order:
      """
      list_mcp_assets
      interleaved-thinking
      subagent-summarize
      evolution-check
      test-thoughtbox
      test-notebook
      test-mental-models
      test-memory
      spec-designer
      spec-validator
      spec-orchestrator
      specification-suite
      """

  @core
  Scenario: a prompt renders its arguments
    Given a fresh MCP session
    When I get the prompt "interleaved-thinking" with:
      """
      {"task": "Fix the flaky test {{nonce}}", "thoughts_limit": "7"}
      """
    Then the prompt text contains "Fix the flaky test {{nonce}}"
    And the prompt text contains "7"
    When I get the prompt "test-mental-models"
    Then the prompt text contains "list_tags"

  @core
  Scenario: a missing required prompt argument is an error
    Given a fresh MCP session
    When I try to get the prompt "interleaved-thinking" with:
      """
      {"thoughts_limit": "7"}
      """
    Then the request fails
    When I get the prompt "interleaved-thinking" with:
      """
      {"task": "t", "thoughts_limit": "7"}
      """
    Then the prompt text contains "7"

  @core
  Scenario: an unknown prompt is an error
    Given a fresh MCP session
    When I try to get the prompt "no-such-prompt" with:
      """
      {}
      """
    Then the request fails naming "no-such-prompt"

  @intent
  Scenario: prompt arguments and template variables complete
    Given a fresh MCP session
    When I complete the argument "depth" of the prompt "spec-designer" from "s"
    Then the completions are "shallow, standard"
    When I complete the variable "model" of the template "thoughtbox://mental-models/{tag}/{model}" from "f" with:
      """
      {"tag": "debugging"}
      """
    Then the completions are "five-whys"
    When I complete the variable "mode" of the template "thoughtbox://interleaved/{mode}" from "" with:
      """
      {}
      """
    Then the completions are "research, analysis, development"

  # D18 and D24: the revision history of a thought holds the revisions of
  # its revisions too, oldest first.
  @intent
  Scenario: revision history includes revisions of revisions (D18, D24)
    Given a reasoning session at stage cipher_loaded
    When I record thoughts 1 to 2 of 4
    And I revise thought 1 with thought 3
    And I revise thought 3 with thought 4
    And I read the resource "thoughtbox://revisions/{{sid}}/1"
    Then the resource JSON "count" is 3
    And the resource lists the thoughts 1, 3, 4
