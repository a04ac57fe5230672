# Validation rules of the thought operation: what is refused, and the field
# and value each refusal names (never the wording of the message, which is
# each server's own). The reference server also enforces the data model
# (positive whole numbers, branch id pattern, existing references).
Feature: Validation of thought arguments

  Background:
    Given a reasoning session at stage cipher_loaded

  @core @validation
  Scenario: a thought call without args is refused, naming args
    When I call "thought"
    Then the call fails naming "args"

  @core @validation
  Scenario Outline: missing required parameters are listed with what was received
    When I call "thought" with:
      """
      <args>
      """
    Then the call fails
    And the answer lists required "thought, nextThoughtNeeded" and received "<received>"

    Examples:
      | args                                          | received                         |
      | {}                                            |                                  |
      | {"nextThoughtNeeded": true, "thoughtNumber": 1} | nextThoughtNeeded, thoughtNumber |
      | {"thought": "", "nextThoughtNeeded": true}    | thought, nextThoughtNeeded       |
      | {"thought": "x"}                              | thought                          |

  @core @validation
  Scenario Outline: arguments of the wrong type are refused with a clear message
    When I call "thought" with:
      """
      <args>
      """
    Then the call fails naming "<field>" with status "failed"

    Examples:
      | args                                                            | field             |
      | {"thought": 42, "nextThoughtNeeded": true}                      | thought           |
      | {"thought": "x", "nextThoughtNeeded": "yes"}                    | nextThoughtNeeded |
      | {"thought": "x", "nextThoughtNeeded": null}                     | nextThoughtNeeded |
      | {"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": "3"} | thoughtNumber     |
      | {"thought": "x", "nextThoughtNeeded": true, "totalThoughts": "3"} | totalThoughts     |

  @core @validation
  Scenario: a branch id needs the thought it forks from
    When I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "branchId": "b1"}
      """
    Then the call fails naming "branchFromThought" with status "failed"

  @core @validation
  Scenario: a refused thought changes nothing
    When I call "thought" with:
      """
      {"thought": 42, "nextThoughtNeeded": true}
      """
    And I call "read_thoughts"
    Then the call fails

  @intent @validation
  Scenario Outline: thought numbers are positive whole numbers
    When I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": <number>}
      """
    Then the call fails naming "thoughtNumber" with status "failed"

    Examples:
      | number |
      | 0      |
      | -1     |
      | 2.5    |

  @intent @validation
  Scenario Outline: branch ids are lowercase letters, digits and hyphens, never paths
    When I record 1 thought
    And I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1, "branchId": "<id>"}
      """
    Then the call fails naming "branchId" with status "failed"

    Examples:
      | id       |
      | x/y      |
      | ../esc   |
      | Upper    |
      | has space |

  @intent @validation
  Scenario: a branch must fork from an existing main-chain thought
    When I record 2 thoughts
    And I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 7, "branchId": "alt"}
      """
    Then the call fails naming "branchFromThought" and "7" with status "failed"

  @intent @validation
  Scenario: a revision must name an existing thought, so it can not revise itself
    When I record 2 thoughts
    And I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 3, "isRevision": true, "revisesThought": 3}
      """
    Then the call fails naming "revisesThought" and "3" with status "failed"
    When I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 9}
      """
    Then the call fails naming "revisesThought" and "9" with status "failed"

  @quirk @validation
  Scenario: the original accepts a thought numbered zero
    When I call "thought" with:
      """
      {"thought": "zero {{nonce}}", "nextThoughtNeeded": true, "thoughtNumber": 0}
      """
    Then the call succeeds

  @quirk @validation
  Scenario: the original reads verbose "true" as not verbose
    When I call "thought" with:
      """
      {"thought": "vs {{nonce}}", "nextThoughtNeeded": true, "verbose": "true"}
      """
    Then the call succeeds
    And the answer matches:
      """
      {"thoughtNumber": 1, "sessionId": "{{*}}"}
      """

  # D29: a fork point without a branch id is refused naming both, as a
  # branch id without a fork point is; 1.2.2 stores the thought on the main
  # chain, dropping the fork.
  @intent @validation
  Scenario: branchFromThought without branchId is refused naming both, and leaves no trace (D29)
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I call "thought" with:
      """
      {"thought": "Half a fork {{nonce}}", "nextThoughtNeeded": true, "branchFromThought": 1}
      """
    Then the call fails naming "branchFromThought" and "branchId"
    When I record 1 thought
    Then the answer has thoughtNumber 3

  @intent @validation
  Scenario: a first thought with branchFromThought and no branchId is refused naming both and starts nothing (D29)
    Given a reasoning session at stage cipher_loaded
    When I call "thought" with:
      """
      {"thought": "Half a fork {{nonce}}", "nextThoughtNeeded": true, "branchFromThought": 1}
      """
    Then the call fails naming "branchFromThought" and "branchId"
    And no reasoning session was started
