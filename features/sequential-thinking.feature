# The sequential-thinking family's own contract (families/sequential-thinking.md):
# what @modelcontextprotocol/server-sequential-thinking and its ports promise
# beyond the ledger every family shares (family.feature). @core is what the
# official server's code guarantees; @intent what a careful ledger does that
# it does not (the same rules the gateway family holds at @intent). Every
# refusal is checked after the same session has shown it records a valid
# thought, and a refused thought must leave no trace in the history.
@sequential-thinking
Feature: The sequential-thinking family

  @core @ledger
  Scenario: the answer has exactly the family's five fields
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 1 of 3
    Then the answer has exactly the fields "thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches" and "thoughtHistoryLength"

  @core @ledger
  Scenario: the history grows by one with every accepted thought
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 1 of 4
    And I note the answer's "thoughtHistoryLength"
    And I record thoughts 2 to 4 of 4
    Then the answer's "thoughtHistoryLength" grew by 3 since I noted it

  @core @ledger
  Scenario: a thought that needs no further thought ends nothing
    Given a fresh reasoning session that asks for full answers
    When I record the thought "Done, I think" with:
      """
      {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false}
      """
    And I note the answer's "thoughtHistoryLength"
    And I record thoughts 2 to 2 of 2
    Then the answer has thoughtNumber 2, totalThoughts 2 and nextThoughtNeeded true
    And the answer's "thoughtHistoryLength" grew by 1 since I noted it

  @core @ledger
  Scenario: a branch is listed only when the thought names both its id and where it forks
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I record the thought "Half a branch" with:
      """
      {"thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true, "branchFromThought": 1}
      """
    Then the answer lists branches ""
    When I branch "whole" from thought 1 with thought 3 of 4
    Then the answer lists branches "whole"

  @core @validation
  Scenario Outline: a thought with <what> is refused and leaves no trace
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 1 of 2
    And I note the answer's "thoughtHistoryLength"
    And I call "thought" with:
      """
      <args>
      """
    Then the call fails naming "<field>"
    When I record thoughts 2 to 2 of 2
    Then the answer's "thoughtHistoryLength" grew by 1 since I noted it

    Examples:
      | what                         | args                                                                                   | field             |
      | no text                      | {"thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": true}                    | thought           |
      | a text that is not a string  | {"thought": 42, "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": true}     | thought           |
      | thought number 0             | {"thought": "x", "thoughtNumber": 0, "totalThoughts": 2, "nextThoughtNeeded": true}    | thoughtNumber     |
      | a fractional thought number  | {"thought": "x", "thoughtNumber": 1.5, "totalThoughts": 2, "nextThoughtNeeded": true}  | thoughtNumber     |
      | a total of 0                 | {"thought": "x", "thoughtNumber": 2, "totalThoughts": 0, "nextThoughtNeeded": true}    | totalThoughts     |
      | no nextThoughtNeeded         | {"thought": "x", "thoughtNumber": 2, "totalThoughts": 2}                               | nextThoughtNeeded |
      | a nextThoughtNeeded of "yes" | {"thought": "x", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": "yes"}   | nextThoughtNeeded |

  @intent @validation
  Scenario: a branch must fork from a thought that exists
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I call "thought" with:
      """
      {"thought": "x", "thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true, "branchFromThought": 7, "branchId": "alt"}
      """
    Then the call fails naming "branchFromThought"

  @intent @validation
  Scenario: a revision must name a thought that exists
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I call "thought" with:
      """
      {"thought": "x", "thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 9}
      """
    Then the call fails naming "revisesThought"

  @intent @validation
  Scenario: a branch id needs the thought it forks from
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I call "thought" with:
      """
      {"thought": "x", "thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true, "branchId": "alt"}
      """
    Then the call fails naming "branchFromThought"

  @intent @ledger
  Scenario Outline: a branch id that names a JavaScript prototype member is an ordinary branch
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I branch "<id>" from thought 1 with thought 3 of 4
    Then the answer lists branches "<id>"

    Examples:
      | id          |
      | __proto__   |
      | constructor |
