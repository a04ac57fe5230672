# Suite A of the benchmarking briefing: stage gating and advancement.
Feature: Stage gating of the thoughtbox_gateway tool
  Every MCP connection starts at stage entry. start_new and load_context move
  it to init_complete, cipher to cipher_loaded; only successful calls advance,
  and an operation called too early answers with a structured error.

  @core @gating
  Scenario Outline: <operation> before its stage is reached
    Given a fresh MCP session
    When I call "<operation>" with:
      """
      {}
      """
    Then the call fails with a stage error: current stage "entry", required stage "<required>"
    And the suggestion names <first>

    Examples:
      | operation     | required      | first                          |
      | thought       | cipher_loaded | "cipher"                       |
      | read_thoughts | cipher_loaded | "cipher"                       |
      | get_structure | cipher_loaded | "cipher"                       |
      | notebook      | cipher_loaded | "cipher"                       |
      | mental_models | cipher_loaded | "cipher"                       |
      | knowledge     | cipher_loaded | "cipher"                       |
      | cipher        | init_complete | "start_new" and "load_context" |
      | session       | init_complete | "start_new" and "load_context" |
      | deep_analysis | init_complete | "start_new" and "load_context" |

  @core @gating
  Scenario: start_new then cipher unlock the reasoning operations
    Given a fresh MCP session
    When I call "start_new" with:
      """
      {"newWork": {"project": "gating-{{nonce}}"}}
      """
    Then the call succeeds
    When I call "thought" with:
      """
      {"thought": "too early", "nextThoughtNeeded": true}
      """
    Then the call fails with a stage error: current stage "init_complete", required stage "cipher_loaded"
    When I call "cipher"
    Then the call succeeds
    When I record 1 thought
    Then the thought numbers were 1

  @core @gating
  Scenario: a failed start_new does not advance the stage
    Given a fresh MCP session
    When I call "start_new" with:
      """
      {}
      """
    Then the call fails
    When I call "cipher"
    Then the call fails with a stage error: current stage "entry", required stage "init_complete"

  @core @gating
  Scenario: a failed load_context does not advance the stage
    Given a fresh MCP session
    When I call "load_context" with:
      """
      {"sessionId": "no-such-session-{{nonce}}"}
      """
    Then the call fails
    When I call "cipher"
    Then the call fails with a stage error: current stage "entry", required stage "init_complete"

  @core @gating
  Scenario: entry operations never advance the stage
    Given a fresh MCP session
    When I call "get_state"
    Then the call succeeds
    When I call "list_sessions"
    Then the call succeeds
    When I call "cipher"
    Then the call fails with a stage error: current stage "entry", required stage "init_complete"

  @core @gating
  Scenario: operations can be repeated after their stage is reached
    Given a reasoning session at stage cipher_loaded
    When I call "cipher"
    Then the call succeeds
    When I call "start_new" with:
      """
      {"newWork": {"project": "again-{{nonce}}"}}
      """
    Then the call succeeds
    When I record 2 thoughts
    Then the thought numbers were 1, 2

  @core @gating
  Scenario: get_state reports the connection stage of the init flow
    Given a fresh MCP session
    When I call "get_state"
    Then the answer text starts with "Connection stage: stage_1"
    When I call "start_new" with:
      """
      {"newWork": {"project": "state-{{nonce}}", "task": "t1"}}
      """
    And I call "get_state"
    Then the answer text starts with "Connection stage: stage_3"
    And the answer text contains "Project: state-{{nonce}}"

  @core @gating
  Scenario: two MCP sessions keep their own stage and reasoning session
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And MCP session "B" opens
    And session "B" calls "thought" with:
      """
      {"thought": "from B", "nextThoughtNeeded": true}
      """
    Then the call fails with a stage error: current stage "entry", required stage "cipher_loaded"
    When session "B" reaches stage cipher_loaded
    And session "B" calls "read_thoughts"
    Then the call fails
    When session "B" calls "thought" with:
      """
      {"thought": "B's first {{nonce}}", "nextThoughtNeeded": true}
      """
    Then the answer matches:
      """
      {"thoughtNumber": 1, "sessionId": "{{sidB}}"}
      """
    And "{{sidB}}" differs from "{{sid}}"
    When session "default" calls "read_thoughts"
    Then I get thoughts 1, 2

  @intent @gating
  Scenario Outline: <operation> answers at once when the client has no roots capability
    Given a fresh MCP session
    When I call "<operation>" with:
      """
      {"rootUri": "file:///tmp/project"}
      """
    Then the call fails
    And the call took less than 5 seconds

    Examples:
      | operation  |
      | list_roots |
      | bind_root  |
