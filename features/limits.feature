# Every limit the specification states, checked at its value and one past it:
# the session title (data model: at most 200 characters), the lower bound
# of the thought numbers (D21: 1), evolution-check's 100-character preview,
# extract_learnings' 5 patterns, 3 anti-patterns and 500/300-character
# quotes; and every documented default, told apart from another value: the
# prompts' arguments left out, session search's 10. Elsewhere: the HTTP body
# (D14: 4 MiB = 4,194,304 bytes) in transport.feature, the cipher's 150 code
# units in exports.feature, the thought_added preview (100) in
# events.feature, session list's limit and default (D30) in sessions.feature,
# read_thoughts' default last 5 in ledger.feature.
# A refusal is judged by the error and the field it names, never the wording.
Feature: Limits at their value and one past it

  @intent @validation
  Scenario: a session title of 200 characters is kept whole
    Given a reasoning session at stage cipher_loaded
    When I record a thought with a session title of 200 characters
    Then the call succeeds
    And the session's title is the one sent

  @intent @validation
  Scenario: a session title of 201 characters is refused and starts nothing
    Given a reasoning session at stage cipher_loaded
    When I record a thought with a session title of 201 characters
    Then the call is refused, naming "sessionTitle"
    And no reasoning session was started

  @intent @validation
  Scenario Outline: <field> is accepted at 1 and refused at 0
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I call "thought" with:
      """
      {"thought": "At zero {{nonce}}", "nextThoughtNeeded": true, <with> "<field>": 0}
      """
    Then the call is refused, naming "<field>"
    When I call "thought" with:
      """
      {"thought": "At one {{nonce}}", "nextThoughtNeeded": true, <with> "<field>": 1}
      """
    Then the call succeeds

    Examples:
      | field             | with                  |
      | totalThoughts     |                       |
      | branchFromThought | "branchId": "edge",   |
      | revisesThought    | "isRevision": true,   |

  # Prompt arguments left out take their documented defaults (upstream
  # models-notebook-knowledge-resources §4.10); each is checked against a
  # value given, so a default that changed can not pass for it.
  @core @resources
  Scenario Outline: <prompt> shows <variable> as <default> when <argument> is left out
    Given a fresh MCP session
    When I get the prompt "<prompt>" with:
      """
      {<required>}
      """
    Then the prompt's variable "<variable>" is "<default>"
    When I get the prompt "<prompt>" with:
      """
      {<required>, "<argument>": "<other>"}
      """
    Then the prompt's variable "<variable>" is "<other>"

    Examples:
      | prompt               | required                                  | argument        | variable        | default  | other   |
      | interleaved-thinking | "task": "Limits {{nonce}}"                | thoughts_limit  | THOUGHTS_LIMIT  | 100      | 7       |
      | interleaved-thinking | "task": "Limits {{nonce}}"                | clear_folder    | CLEAR_FOLDER    | false    | true    |
      | spec-designer        | "prompt": "Limits {{nonce}}"              | output_folder   | OUTPUT_FOLDER   | .specs/  | out/    |
      | spec-designer        | "prompt": "Limits {{nonce}}"              | depth           | DEPTH           | standard | shallow |
      | spec-designer        | "prompt": "Limits {{nonce}}"              | max_specs       | MAX_SPECS       | 5        | 3       |
      | spec-designer        | "prompt": "Limits {{nonce}}"              | plan_only       | PLAN_ONLY       | false    | true    |
      | spec-validator       | "spec_path": "specs/{{nonce}}"            | strict          | STRICT_MODE     | false    | true    |
      | spec-validator       | "spec_path": "specs/{{nonce}}"            | deep            | DEEP_VALIDATION | false    | true    |
      | spec-validator       | "spec_path": "specs/{{nonce}}"            | report_only     | REPORT_ONLY     | false    | true    |
      | spec-orchestrator    | "spec_folder": "specs/{{nonce}}"          | budget          | BUDGET          | 100      | 50      |
      | spec-orchestrator    | "spec_folder": "specs/{{nonce}}"          | max_iterations  | MAX_ITERATIONS  | 3        | 2       |
      | spec-orchestrator    | "spec_folder": "specs/{{nonce}}"          | plan_only       | PLAN_ONLY       | false    | true    |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | output_folder   | OUTPUT_FOLDER   | .specs/  | out/    |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | depth           | DEPTH           | standard | shallow |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | budget          | BUDGET          | 100      | 50      |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | plan_only       | PLAN_ONLY       | false    | true    |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | skip_design     | SKIP_DESIGN     | false    | true    |
      | specification-suite  | "prompt_or_spec_path": "Limits {{nonce}}" | skip_validation | SKIP_VALIDATION | false    | true    |

  # evolution-check shows the new thought's first 100 characters, plus
  # "..." when it is longer (upstream §4.10).
  @core @resources
  Scenario: evolution-check shows a new thought of 100 characters whole and cuts one of 101
    Given a fresh MCP session
    When I get the prompt "evolution-check" with "newThought" of 100 characters
    Then the prompt shows that argument whole
    When I get the prompt "evolution-check" with "newThought" of 101 characters
    Then the prompt shows that argument cut to 100 characters and "..."

  # A first thought the ledger refuses creates nothing: no session is left
  # behind as the current one (1.2.2 creates the session before it checks
  # the revision).
  @intent @validation
  Scenario: a first thought refused for revising a thought that does not exist starts no session
    Given a reasoning session at stage cipher_loaded
    When I call "thought" with:
      """
      {"thought": "Revises nothing {{nonce}}", "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 4}
      """
    Then the call fails naming "revisesThought" and "4"
    And no reasoning session was started
    When I record 1 thought
    Then the answer has thoughtNumber 1

  # session search returns 10 sessions unless told otherwise (upstream
  # persistence-sessions §9.4).
  @core @sessions
  Scenario: session search returns 10 sessions by default
    Given a reasoning session at stage cipher_loaded
    When I start 11 reasoning sessions tagged "found-{{nonce}}"
    And I call "session" with:
      """
      {"operation": "search", "query": "found-{{nonce}}"}
      """
    Then the call succeeds
    And the answer's "sessions" has 10 items
    When I call "session" with:
      """
      {"operation": "search", "query": "found-{{nonce}}", "limit": 11}
      """
    Then the call succeeds
    And the answer's "sessions" has 11 items

  # extract_learnings makes patterns of the first 5 decision, insight and
  # pivot moments and anti-patterns of the first 3 revision moments
  # (upstream persistence-sessions §9.8).
  @core @sessions
  Scenario: extract_learnings makes at most 5 patterns and 3 anti-patterns, of the first moments
    Given a reasoning session at stage cipher_loaded
    When I record 6 thoughts
    And I revise thought 1 with thought 7
    And I revise thought 2 with thought 8
    And I revise thought 3 with thought 9
    And I revise thought 4 with thought 10
    And I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "anti-pattern"],
       "keyMoments": [{"thoughtNumber": 1, "type": "decision"}, {"thoughtNumber": 2, "type": "insight"}, {"thoughtNumber": 3, "type": "pivot"},
         {"thoughtNumber": 4, "type": "decision"}, {"thoughtNumber": 5, "type": "decision"},
         {"thoughtNumber": 7, "type": "revision"}, {"thoughtNumber": 8, "type": "revision"}, {"thoughtNumber": 9, "type": "revision"}]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 8
    And learning 5 is a "pattern" of the session from thoughts "5"
    And learning 8 is a "anti-pattern" of the session from thoughts "9, 3"
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "anti-pattern"],
       "keyMoments": [{"thoughtNumber": 1, "type": "decision"}, {"thoughtNumber": 2, "type": "insight"}, {"thoughtNumber": 3, "type": "pivot"},
         {"thoughtNumber": 4, "type": "decision"}, {"thoughtNumber": 5, "type": "decision"}, {"thoughtNumber": 6, "type": "decision"},
         {"thoughtNumber": 7, "type": "revision"}, {"thoughtNumber": 8, "type": "revision"}, {"thoughtNumber": 9, "type": "revision"},
         {"thoughtNumber": 10, "type": "revision"}]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 8
    And learning 5 is a "pattern" of the session from thoughts "5"
    And learning 6 is a "anti-pattern" of the session from thoughts "7, 1"
    And learning 8 is a "anti-pattern" of the session from thoughts "9, 3"

  # A pattern quotes the first 500 characters of its thought, an
  # anti-pattern the first 300 of the revision (§9.8).
  @core @sessions
  Scenario: extract_learnings quotes 500 characters of a pattern's thought and 300 of a revision
    Given a reasoning session at stage cipher_loaded
    When I record a thought of 500 characters
    And I record a thought of 501 characters
    And I revise thought 1 with a thought of 300 characters
    And I revise thought 2 with a thought of 301 characters
    And I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "anti-pattern"],
       "keyMoments": [{"thoughtNumber": 1, "type": "decision"}, {"thoughtNumber": 2, "type": "insight"},
         {"thoughtNumber": 3, "type": "revision"}, {"thoughtNumber": 4, "type": "revision"}]}
      """
    Then the call succeeds
    And learning 1 quotes the thought of 500 characters whole
    And learning 2 quotes the thought of 501 characters cut to 500 characters
    And learning 3 quotes the thought of 300 characters whole
    And learning 4 quotes the thought of 301 characters cut to 300 characters

  @intent @sessions
  Scenario Outline: session list takes an offset from 0, refusing <offset> (data model SessionFilter)
    Given a reasoning session at stage cipher_loaded
    When I call "session" with:
      """
      {"operation": "list", "offset": 0, "limit": 1}
      """
    Then the call succeeds
    When I call "session" with:
      """
      {"operation": "list", "offset": <offset>}
      """
    Then the call fails naming "offset"

    Examples:
      | offset |
      | -1     |
      | 1.5    |

  # The gateway's list_sessions lists 20 sessions unless filters.limit says
  # otherwise (upstream gateway-ledger §3.2: its text is "Found <n>
  # sessions (filters: …)").
  @core @sessions
  Scenario: list_sessions lists 20 sessions by default
    Given a reasoning session at stage cipher_loaded
    When I start 21 reasoning sessions tagged "project:lim-{{nonce}}"
    And I call "list_sessions" with:
      """
      {"filters": {"project": "lim-{{nonce}}"}}
      """
    Then the call succeeds
    And the answer text starts with "Found 20 sessions"
    When I call "list_sessions" with:
      """
      {"filters": {"project": "lim-{{nonce}}", "limit": 21}}
      """
    Then the call succeeds
    And the answer text starts with "Found 21 sessions"
