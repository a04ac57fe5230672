# Fields and filters in combinations the golden sequences never use: each
# optional attribution field on its own, reads with branch thoughts present,
# reads of a session other than the current one, and branches whose numbers
# have gaps.
Feature: Fields and filters in other combinations

  @intent @behavioural
  Scenario: Test 22 - agentName without agentId comes back on its own
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Named only" with:
      """
      {"nextThoughtNeeded": true, "agentName": "Solo Agent", "verbose": true}
      """
    Then the answer has "agentName" equal to "Solo Agent"
    When I call "read_thoughts"
    Then thought 1 is attributed to "" "Solo Agent"
    When I export the session
    Then node 1 of the export is attributed to "" "Solo Agent"

  @intent @behavioural
  Scenario: Test 22 - agentId without agentName comes back on its own
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Identified only" with:
      """
      {"nextThoughtNeeded": true, "agentId": "agent-solo", "verbose": true}
      """
    Then the answer has "agentId" equal to "agent-solo"
    When I call "read_thoughts"
    Then thought 1 is attributed to "agent-solo" ""
    When I export the session
    Then node 1 of the export is attributed to "agent-solo" ""

  @core @ledger
  Scenario: last, range and the default read count main-chain thoughts only
    Given a reasoning session at stage cipher_loaded
    When I record 6 thoughts
    And I branch "alt" from thought 2 with thought 7
    And I branch "alt" from thought 2 with thought 8
    And I call "read_thoughts" with:
      """
      {"last": 3}
      """
    Then I get thoughts 4, 5, 6
    When I call "read_thoughts" with:
      """
      {"range": [5, 8]}
      """
    Then I get thoughts 5, 6
    When I call "read_thoughts"
    Then I get thoughts 2, 3, 4, 5, 6
    When I call "read_thoughts" with:
      """
      {"branchId": "alt"}
      """
    Then I get thoughts 7, 8

  @core @ledger
  Scenario: a read of another session than the current one reports that session
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I record a closing thought
    And I remember the reasoning session as "A"
    And I record 2 thoughts
    And I call "read_thoughts" with:
      """
      {"sessionId": "{{A}}", "last": 10}
      """
    Then the read reports session "A"
    And I get thoughts 1, 2, 3
    When I call "get_structure" with:
      """
      {"sessionId": "{{A}}"}
      """
    Then the structure reports session "A"
    And the structure's main chain has length 3, head 1 and tail 3

  @intent @ledger
  Scenario: a branch with gaps in its numbers reports its true range and length
    Given a reasoning session at stage cipher_loaded
    When I record 4 thoughts
    And I branch "gap" from thought 2 with thought 5
    And I branch "gap" from thought 2 with thought 9
    And I call "get_structure"
    Then the structure reports branch "gap" forking from 2 with range 5 to 9 and length 2
    When I call "read_thoughts" with:
      """
      {"branchId": "gap"}
      """
    Then I get thoughts 5, 9

  @core @sessions
  Scenario: sessionTags without sessionTitle keep the tags under a title of the server's
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Tagged, untitled" with:
      """
      {"nextThoughtNeeded": true, "sessionTags": ["solo-{{nonce}}"]}
      """
    And I export the session
    Then the export's session has tags "solo-{{nonce}}" and a title
