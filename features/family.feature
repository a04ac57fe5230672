# The ledger every family of reasoning servers shares: each thought's number,
# the total and whether another is needed, branches and revisions. These
# scenarios use only the operations every profile maps (harness/profile;
# each family's contract is in families/), so they run against a gateway
# server, Thoughtbox's Code Mode and the sequential-thinking servers alike.
# A step that needs what a family lacks makes its scenario not applicable
# there, naming what is missing.
@every-family @ledger
Feature: The ledger every family shares

  @core
  Scenario: every thought's answer gives its number, the total and whether another is needed
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 3 of 3
    Then the thought numbers were 1, 2, 3
    And the answer has thoughtNumber 3, totalThoughts 3 and nextThoughtNeeded true

  @core
  Scenario: a thought numbered past the total raises the total to its number
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 5 of 3
    Then the answer has thoughtNumber 5, totalThoughts 5 and nextThoughtNeeded true

  @core
  Scenario: a branch is listed once it has a thought
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 2 of 4
    And I branch "alt" from thought 1 with thought 2 of 4
    Then the answer lists branches "alt"

  @core
  Scenario: branches are listed in the order they were started, each once
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 3 of 5
    And I branch "first" from thought 1 with thought 2 of 5
    And I branch "second" from thought 2 with thought 3 of 5
    And I branch "first" from thought 1 with thought 3 of 5
    Then the answer lists branches "first, second"

  @core
  Scenario: a revision of an earlier thought is accepted
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 3 of 4
    And I revise thought 2 with thought 4 of 4
    Then the answer has thoughtNumber 4, totalThoughts 4 and nextThoughtNeeded true

  @core
  Scenario: the last thought says no further thought is needed
    Given a fresh reasoning session that asks for full answers
    When I record thoughts 1 to 1 of 2
    And I record the thought "The conclusion" with:
      """
      {"thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": false}
      """
    Then the answer has thoughtNumber 2, totalThoughts 2 and nextThoughtNeeded false
