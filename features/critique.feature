# Decision D10: critique through MCP sampling works and never delays a
# thought beyond the critique timeout.
Feature: Critique through MCP sampling

  @intent @critique
  Scenario: a client that answers sampling gets the critique back, and it is stored
    Given a reasoning session at stage cipher_loaded whose client answers sampling requests
    When I record a thought asking for a critique
    Then the answer carries a critique from the client's model
    When I call "read_thoughts"
    Then the answer's "thoughts" has 1 items
    And the answer text contains "tbbench-sampler"

  @intent @critique
  Scenario: without sampling, asking for a critique neither fails nor delays the thought
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I record a thought asking for a critique
    Then the call succeeds
    And the answer has thoughtNumber 3
    And the answer carries no critique
    And the call took less than 5 seconds
