# The session operation (its arguments are siblings of "operation", D16)
# and load_context. Scenarios tagged @shared-state use two MCP sessions on one
# server's storage; against a stdio target with memory storage (every stdio
# connection is its own process) they are not applicable.
Feature: Sessions

  @core @sessions
  Scenario: list pages through sessions, newest first, with tags
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Tagged" with:
      """
      {"nextThoughtNeeded": true, "sessionTitle": "Listed {{nonce}}", "sessionTags": ["list-{{nonce}}"]}
      """
    And I call "session" with:
      """
      {"operation": "list", "tags": ["list-{{nonce}}"], "limit": 5}
      """
    Then the call succeeds
    And the answer matches:
      """
      {"sessions": [{"id": "{{sid}}", "title": "Listed {{nonce}}", "tags": ["list-{{nonce}}"], "thoughtCount": 1, "branchCount": 0,
        "partitionPath?": "{{*}}", "createdAt": "{{ts}}", "updatedAt": "{{ts}}", "lastAccessedAt": "{{ts}}"}], "count": 1, "hasMore": false}
      """
    And the answer carries the resource "thoughtbox://session/operations/list"

  @core @sessions
  Scenario: get returns the session with its main-chain thoughts
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I call "session" with:
      """
      {"operation": "get", "sessionId": "{{sid}}"}
      """
    Then the answer's "session.id" is "{{sid}}"
    And the answer's "thoughts" has 3 items

  @intent @sessions
  Scenario: get returns every branch with its thoughts
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I call "session" with:
      """
      {"operation": "get", "sessionId": "{{sid}}"}
      """
    Then the answer's "branches.alt" has 1 items

  @intent @sessions
  Scenario: the nested args form of the seeds is accepted too
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I call "session" with:
      """
      {"operation": "get", "args": {"sessionId": "{{sid}}"}}
      """
    Then the answer's "session.id" is "{{sid}}"

  @core @sessions
  Scenario: an unknown session operation is refused
    Given a reasoning session at stage cipher_loaded
    When I call "session" with:
      """
      {"operation": "frobnicate"}
      """
    Then the call fails naming "frobnicate"

  @core @sessions @shared-state
  Scenario: resume continues a session from another connection
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I remember the reasoning session as "A"
    And MCP session "B" opens
    And session "B" reaches stage cipher_loaded
    And session "B" calls "session" with:
      """
      {"operation": "resume", "sessionId": "{{A}}"}
      """
    Then the answer has "success" equal to true
    When session "B" calls "thought" with:
      """
      {"thought": "Continued by B {{nonce}}", "nextThoughtNeeded": true}
      """
    Then the answer matches:
      """
      {"thoughtNumber": 4, "sessionId": "{{A}}"}
      """

  @core @sessions @shared-state
  Scenario: load_context restores a session and the numbering continues
    Given a reasoning session at stage cipher_loaded
    When I record thoughts 1, 2 and 6 of 6
    And I remember the reasoning session as "A"
    And MCP session "B" opens
    And session "B" calls "load_context" with:
      """
      {"sessionId": "{{A}}"}
      """
    Then the call succeeds
    When session "B" calls "cipher"
    And session "B" calls "thought" with:
      """
      {"thought": "After load {{nonce}}", "nextThoughtNeeded": true}
      """
    Then the answer matches:
      """
      {"thoughtNumber": 7, "sessionId": "{{A}}"}
      """

  @core @sessions
  Scenario: load_context of an unknown session is an error
    Given a fresh MCP session
    When I call "load_context" with:
      """
      {"sessionId": "missing-{{nonce}}"}
      """
    Then the call fails naming "missing-{{nonce}}"
