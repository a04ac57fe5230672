# The Code Mode family's own contract (families/code-mode.md): what
# Thoughtbox since March 2026 promises through thoughtbox_execute and
# tb.thought beyond the ledger every family shares (family.feature). @core is
# what its code does and the recordings show; @intent what the seeds ask of
# a reasoning ledger that it does not do. Every refusal is checked after the
# same session has recorded a valid thought, and must leave no trace: the
# next thought without a number still follows the last one recorded.
@code-mode
Feature: The Code Mode family

  @core @ledger
  Scenario: a thought without a number follows the highest main-chain thought
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I record 1 thought
    Then the thought numbers were 3
    And the answer has a sessionId

  @core @ledger
  Scenario: a branch thought is listed and does not move the main chain on
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I branch "alt" from thought 1 with thought 3 of 4
    Then the answer lists branches "alt"
    When I record 1 thought
    Then the thought numbers were 3

  @core @validation
  Scenario Outline: a thought with <what> is refused and leaves no trace
    Given a fresh reasoning session that asks for full answers
    When I record 1 thought
    And I call "thought" with:
      """
      <args>
      """
    Then the call fails naming "<field>"
    When I record 1 thought
    Then the thought numbers were 2

    Examples:
      | what                              | args                                                                | field             |
      | no text                           | {"nextThoughtNeeded": true}                                         | thought           |
      | a text that is not a string       | {"thought": 42, "nextThoughtNeeded": true}                          | thought           |
      | no nextThoughtNeeded              | {"thought": "x"}                                                    | nextThoughtNeeded |
      | a nextThoughtNeeded that is text  | {"thought": "x", "nextThoughtNeeded": "yes"}                        | nextThoughtNeeded |
      | a thought number that is text     | {"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": "7"}   | thoughtNumber     |
      | a branch id without its fork      | {"thought": "x", "nextThoughtNeeded": true, "branchId": "b1"}       | branchFromThought |

  @intent @validation
  Scenario: thought numbers are positive whole numbers
    Given a fresh reasoning session that asks for full answers
    When I record 1 thought
    And I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 0}
      """
    Then the call fails naming "thoughtNumber"

  @intent @ledger
  Scenario: after a session is closed the next thought starts a new one at thought 1
    Given a fresh reasoning session that asks for full answers
    When I record 3 thoughts
    And I record a closing thought
    And I record 1 thought
    Then the thought numbers were 1
