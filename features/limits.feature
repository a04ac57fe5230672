# Every limit the specification states, checked at its value and one past it:
# the session title (data model: at most 200 characters) and the lower bound
# of the thought numbers (D21: 1). The HTTP body (D14: 4 MiB = 4,194,304 bytes)
# is checked so in transport.feature, the cipher's 150 code units in
# exports.feature.
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
