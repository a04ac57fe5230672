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

  # search, analyze, extract_learnings, discovery, list cursors and
  # deep_analysis. Branch thoughts count in every analysis (D7).

  @core @sessions
  Scenario: search finds the sessions whose title or tags contain the query, ignoring case
    Given a reasoning session at stage cipher_loaded
    When I record the thought "In the title" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "About needle-{{nonce}} here"}
      """
    And I remember the reasoning session as "title"
    And I record the thought "In a tag" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "Tagged {{nonce}}", "sessionTags": ["needle-{{nonce}}-tag"]}
      """
    And I remember the reasoning session as "tag"
    And I record the thought "Elsewhere" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "Haystack {{nonce}}", "sessionTags": ["hay-{{nonce}}"]}
      """
    And I remember the reasoning session as "other"
    And I call "session" with:
      """
      {"operation": "search", "query": "NEEDLE-{{nonce}}", "limit": 50}
      """
    Then the call succeeds
    And the answer's sessions include "title" and "tag"
    And the answer's sessions include none of "other"
    And every session in the answer has "needle-{{nonce}}" in its title, description or tags, ignoring case
    And the answer carries the resource "thoughtbox://session/operations/search"

  @intent @sessions
  Scenario: search takes a query of any size and character set and answers a bounded result
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I search for a query of 64 KiB mixing control characters, quotes, regular-expression signs, right-to-left marks and emoji
    Then the call succeeds
    And the answer's "sessions" has 0 items
    And the answer text is shorter than 8 KiB

  @core @sessions
  Scenario: analyze measures the revisions of a known sequence
    Given a reasoning session at stage cipher_loaded
    When I record 4 thoughts
    And I revise thought 2 with thought 5
    And I call "session" with:
      """
      {"operation": "analyze", "sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the answer has "metadata.thoughtCount" equal to 5
    And the answer has "metadata.revisionCount" equal to 1
    And the answer has "structure.revisionRate" equal to 0.2
    And the answer has "structure.linearityScore" equal to 0.8
    And the answer has "quality.isComplete" equal to false

  @intent @sessions
  Scenario: analyze counts branch thoughts, the branches and the main chain's return after them
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I record 1 thought
    And I call "session" with:
      """
      {"operation": "analyze", "sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer has "metadata.thoughtCount" equal to 5
    And the answer has "metadata.branchCount" equal to 1
    And the answer has "structure.linearityScore" equal to 0.8
    And the answer has "structure.maxDepth" equal to 1
    And the answer has "quality.hasConvergence" equal to true

  @core @sessions
  Scenario: extract_learnings makes a pattern of a key moment and a signal of the session
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "signal"],
       "keyMoments": [{"thoughtNumber": 2, "type": "decision", "significance": 7, "summary": "chose {{nonce}}"}]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 2
    And learning 1 is a "pattern" of the session from thoughts "2"
    And learning 2 is a "signal" of the session from thoughts "none"
    And the signal learning says "incomplete" with 3 thoughts

  @intent @sessions
  Scenario: extract_learnings refuses a key moment that names no thought of the session
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern"],
       "keyMoments": [{"thoughtNumber": 9, "type": "insight"}]}
      """
    Then the call fails naming "keyMoments" and "9"

  @core @sessions
  Scenario: discovery lists no discovered tools
    Given a reasoning session at stage init_complete
    When I call "session" with:
      """
      {"operation": "discovery", "action": "list"}
      """
    Then the call succeeds
    And the answer has "success" equal to true
    And the answer's "discoveredTools" has 0 items

  @intent @sessions
  Scenario: discovery refuses an unknown action, naming the valid ones
    Given a reasoning session at stage init_complete
    When I call "session" with:
      """
      {"operation": "discovery", "action": "wave"}
      """
    Then the call fails naming "wave", "list", "hide" and "show"

  @intent @sessions
  Scenario: list pages with the cursor it returned and refuses one it did not issue
    Given a reasoning session at stage cipher_loaded
    When I record the thought "One" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "Paged 1 {{nonce}}", "sessionTags": ["paged-{{nonce}}"]}
      """
    And I record the thought "Two" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "Paged 2 {{nonce}}", "sessionTags": ["paged-{{nonce}}"]}
      """
    And I record the thought "Three" with:
      """
      {"nextThoughtNeeded": false, "sessionTitle": "Paged 3 {{nonce}}", "sessionTags": ["paged-{{nonce}}"]}
      """
    And I call "session" with:
      """
      {"operation": "list", "limit": 2, "tags": ["paged-{{nonce}}"]}
      """
    Then the answer has "hasMore" equal to true
    When I remember the answer's "nextCursor" as "cursor"
    And I call "session" with:
      """
      {"operation": "list", "limit": 2, "tags": ["paged-{{nonce}}"], "cursor": "{{cursor}}"}
      """
    Then the call succeeds
    And the answer's "sessions" has 1 items
    And the answer has "hasMore" equal to false
    When I call "session" with:
      """
      {"operation": "list", "limit": 2, "tags": ["paged-{{nonce}}"], "cursor": "forged.{{nonce}}"}
      """
    Then the call fails naming "cursor"

  @core @sessions
  Scenario: deep_analysis reports patterns, cognitive load and decision points
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I revise thought 2 with thought 4
    And I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "full"}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the answer has "patterns.totalThoughts" equal to 4
    And the answer has "patterns.revisionCount" equal to 1
    And the answer has "cognitiveLoad.complexityScore" equal to 20
    And the answer has "cognitiveLoad.depthIndicator" equal to 4
    And the answer's "decisionPoints" has 1 items

  @core @sessions
  Scenario: deep_analysis without an analysis type is an error naming it
    Given a reasoning session at stage init_complete
    When I call "deep_analysis" with:
      """
      {"sessionId": "any-{{nonce}}"}
      """
    Then the call fails naming "analysisType"

  @intent @sessions
  Scenario: deep_analysis counts branch thoughts and each branch as a line of reasoning
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "full"}
      """
    Then the call succeeds
    And the answer has "patterns.totalThoughts" equal to 4
    And the answer has "patterns.branchCount" equal to 1
    And the answer has "cognitiveLoad.breadthIndicator" equal to 2
    And the answer's "decisionPoints" has 1 items

  @intent @sessions
  Scenario: deep_analysis refuses an unknown analysis type, naming the valid ones
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "evolution"}
      """
    Then the call fails naming "evolution", "patterns", "cognitive_load", "decision_points" and "full"

  # D30: session list takes limit 1-100, default 20 (data model
  # SessionFilter); outside the range it is refused naming the range, never
  # clamped. 21 sessions of the scenario's own tag tell 20 from any other
  # default up to 21.
  @intent @sessions
  Scenario: session list returns 20 sessions by default and takes a limit from 1 to 100 (D30)
    Given a reasoning session at stage cipher_loaded
    When I start 21 reasoning sessions tagged "many-{{nonce}}"
    And I call "session" with:
      """
      {"operation": "list", "tags": ["many-{{nonce}}"]}
      """
    Then the call succeeds
    And the answer's "sessions" has 20 items
    And the answer has "hasMore" equal to true
    When I call "session" with:
      """
      {"operation": "list", "tags": ["many-{{nonce}}"], "limit": 100}
      """
    Then the call succeeds
    And the answer's "sessions" has 21 items
    When I call "session" with:
      """
      {"operation": "list", "tags": ["many-{{nonce}}"], "limit": 1}
      """
    Then the call succeeds
    And the answer's "sessions" has 1 items

  @intent @sessions
  Scenario Outline: session list refuses a limit of <limit>, naming the range (D30)
    Given a reasoning session at stage cipher_loaded
    When I call "session" with:
      """
      {"operation": "list", "limit": <limit>}
      """
    Then the call fails naming "limit" and "100"

    Examples:
      | limit |
      | 0     |
      | 101   |
      | 150   |
