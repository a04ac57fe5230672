# Suite B of the benchmarking briefing: the reasoning ledger, checked against
# the golden sequences in fixtures/ and with focused scenarios.
Feature: The reasoning ledger

  @core @ledger
  Scenario Outline: golden sequence "<fixture>"
    Given a reasoning session at stage cipher_loaded
    When I play the golden sequence "<fixture>"
    Then every answer matches the golden sequence, apart from the reference server's documented fixes

    Examples:
      | fixture  |
      | forward  |
      | backward |
      | branch   |
      | revision |
      | gaps     |

  @intent @ledger
  Scenario Outline: golden sequence "<fixture>" with the reference server's fixes
    Given a reasoning session at stage cipher_loaded
    When I play the golden sequence "<fixture>"
    Then every answer matches the golden sequence, including the reference server's fixes

    Examples:
      | fixture  |
      | branch   |
      | revision |

  @core @ledger
  Scenario: read_thoughts without arguments returns the last five main-chain thoughts
    Given a reasoning session at stage cipher_loaded
    When I record 7 thoughts
    And I branch "side" from thought 3 with thought 8
    And I call "read_thoughts"
    Then I get thoughts 3, 4, 5, 6, 7
    And the read query is "last 5 thoughts (default)"

  @core @ledger
  Scenario: read_thoughts modes take precedence in a fixed order
    Given a reasoning session at stage cipher_loaded
    When I record 5 thoughts
    And I call "read_thoughts" with:
      """
      {"thoughtNumber": 1, "last": 3}
      """
    Then I get thoughts 1
    When I call "read_thoughts" with:
      """
      {"last": 2, "range": [1, 5]}
      """
    Then I get thoughts 4, 5

  @core @ledger
  Scenario: read_thoughts of a number that does not exist is an error
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I call "read_thoughts" with:
      """
      {"thoughtNumber": 99}
      """
    Then the call fails naming "99"

  @core @ledger
  Scenario: read_thoughts of an unknown branch is empty
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I call "read_thoughts" with:
      """
      {"range": [1, 2]}
      """
    Then I get thoughts 1, 2
    When I call "read_thoughts" with:
      """
      {"branchId": "nope"}
      """
    Then I get 0 thoughts

  @core @ledger
  Scenario: reads and structure need a reasoning session
    Given a reasoning session at stage cipher_loaded
    When I call "read_thoughts"
    Then the call fails
    When I call "get_structure"
    Then the call fails

  @core @ledger
  Scenario: the structure of backward thinking spans the lowest to the highest number
    Given a reasoning session at stage cipher_loaded
    When I record thoughts 5 down to 2
    And I call "get_structure"
    Then the structure's main chain has length 4, head 2 and tail 5

  @core @ledger
  Scenario: auto-numbered thoughts continue after the highest main-chain number
    Given a reasoning session at stage cipher_loaded
    When I record thoughts 1, 5 and 8 of 10
    And I record 1 thought
    Then the thought numbers were 9

  @core @ledger
  Scenario: branch thoughts do not advance the main chain's numbering
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I branch "alt" from thought 1 with thought 3
    And I record 1 thought
    Then the thought numbers were 3

  @core @ledger
  Scenario: every thought text comes back in reads and in the export
    Given a reasoning session at stage cipher_loaded
    When I record 4 thoughts
    And I call "read_thoughts" with:
      """
      {"last": 4}
      """
    Then every thought read carries the run's nonce
    When I export the session
    Then every node of the export carries the run's nonce

  @intent @ledger
  Scenario: after a session is closed the next one starts again at thought 1
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    Then the thought numbers were 1, 2, 3
    When I record a closing thought
    And I record 1 thought
    Then the thought numbers were 1

  @quirk @ledger
  Scenario: the original continues the old numbering after a close
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I record a closing thought
    And I record 1 thought
    Then the thought numbers were 5

  @intent @ledger
  Scenario: a thought number that is already taken is refused
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I record the thought "Again two" with:
      """
      {"thoughtNumber": 2, "nextThoughtNeeded": true}
      """
    Then the call fails naming "2"
    When I call "read_thoughts" with:
      """
      {"thoughtNumber": 2}
      """
    Then thought 2 reads "Thought 2"

  @quirk @ledger
  Scenario: the original overwrites a thought recorded twice under one number
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I record the thought "Again two" with:
      """
      {"thoughtNumber": 2, "nextThoughtNeeded": true}
      """
    Then the call succeeds

  @intent @ledger
  Scenario: a branch thought without a number continues its branch
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I record the thought "Side one" with:
      """
      {"branchId": "side", "branchFromThought": 1, "nextThoughtNeeded": true}
      """
    Then the thought numbers were 3
    When I record the thought "Side two" with:
      """
      {"branchId": "side", "branchFromThought": 1, "nextThoughtNeeded": true}
      """
    Then the thought numbers were 4

  @intent @ledger
  Scenario: a revision of a revision belongs to the chain of the original
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I revise thought 2 with thought 4
    And I revise thought 4 with thought 5
    And I export the session
    Then node 5 of the export has revision depth 2 in the chain of thought 2
