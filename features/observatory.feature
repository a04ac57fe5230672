# Suite F: the Observatory (decision D19, spec part C §6.2–6.4): the
# WebSocket channels `observatory` and `reasoning:<sessionId>` with every
# event type of a golden session and the snapshot on joining, the HTTP API,
# garbage frames, the connection limit and the WebSocket path. The harness
# must know where the server runs its Observatory (@observatory-api: the
# embedded server starts one; give --observatory-url or {obsport} for
# others). The scenarios that need settings of their own (a connection
# limit of 2, another path, the HTTP API off) start a server of their own.
# Other scenarios' sessions share the Observatory: every check is about the
# scenario's own reasoning session.
@observatory @intent
Feature: Observatory

  @observatory-api
  Scenario: a golden session is seen live on both channels, with every event type and the ids of the data model
    Given a reasoning session at stage cipher_loaded
    And Observatory client "watcher" subscribed to "observatory"
    And Observatory client "watcher" receives "sessions:active" on "observatory"
    When I record thoughts 1 to 1 of 5
    Then Observatory client "watcher" receives "session:started" on "observatory" for the reasoning session
    And the frame has "session.id" equal to "{{sid}}"
    And the frame has "session.status" equal to "active"
    And the frame's "session.createdAt" is a timestamp
    And Observatory client "watcher" receives "thought:added" on "observatory" for thought 1
    And the frame has "thought.id" equal to "{{sid}}-1"
    And the frame has "parentId" equal to null
    And the frame has "sessionId" equal to "{{sid}}"
    And the frame's "thought.timestamp" is a timestamp
    And the frame's thought carries the run's nonce
    When Observatory client "follower" connects
    And Observatory client "follower" subscribes to "reasoning:{{sid}}" with id "r1"
    Then Observatory client "follower" receives "subscribed" on "reasoning:{{sid}}"
    And the frame has "id" equal to "r1"
    And Observatory client "follower" receives "session:snapshot" on "reasoning:{{sid}}"
    And the frame has "session.id" equal to "{{sid}}"
    And the frame's "thoughts" lists the thoughts 1
    When I record thoughts 2 to 2 of 5
    And I revise thought 1 with thought 3
    And I branch "alt" from thought 2 with thought 4
    And I record the thought "Closing" with:
      """
      {"thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": false}
      """
    Then Observatory client "follower" receives "thought:added" on "reasoning:{{sid}}" for thought 2
    And the frame has "parentId" equal to "{{sid}}-1"
    And the frame has "thought.id" equal to "{{sid}}-2"
    And Observatory client "follower" receives "thought:revised" on "reasoning:{{sid}}" for thought 3
    And the frame has "thought.isRevision" equal to true
    And the frame has "thought.revisesThought" equal to 1
    And the frame has "originalThoughtNumber" equal to 1
    And the frame has "parentId" equal to "{{sid}}-2"
    And the frame's thought carries the run's nonce
    And Observatory client "follower" receives "thought:branched" on "reasoning:{{sid}}" for thought 4
    And the frame has "thought.id" equal to "{{sid}}-alt-4"
    And the frame has "branchId" equal to "alt"
    And the frame has "fromThoughtNumber" equal to 2
    And the frame has "thought.branchFromThought" equal to 2
    And the frame has "parentId" equal to "{{sid}}-3"
    And Observatory client "follower" receives "thought:added" on "reasoning:{{sid}}" for thought 5
    And the frame has "thought.nextThoughtNeeded" equal to false
    And Observatory client "follower" receives "session:ended" on "reasoning:{{sid}}"
    And the frame has "sessionId" equal to "{{sid}}"
    And the frame has "finalThoughtCount" equal to 5
    And Observatory client "watcher" receives "session:ended" on "observatory" for the reasoning session
    And the frame has "finalThoughtCount" equal to 5
    And Observatory client "watcher" received on "observatory", for the reasoning session, exactly "subscribed, session:started, thought:added, thought:added, thought:added, session:ended"
    And Observatory client "follower" received on "reasoning:{{sid}}", for the reasoning session, exactly "subscribed, session:snapshot, thought:added, thought:revised, thought:branched, thought:added, session:ended"
    When Observatory client "late" connects
    And Observatory client "late" subscribes to "reasoning:{{sid}}"
    Then Observatory client "late" receives "session:snapshot" on "reasoning:{{sid}}"
    And the frame has "session.status" equal to "completed"
    And the frame's "session.completedAt" is a timestamp
    And the frame's "thoughts" lists the thoughts 1, 2, 3, 5
    And the frame's "branches.alt.thoughts" lists the thoughts 4
    And the frame has "branches.alt.fromThoughtNumber" equal to 2

  @observatory-api
  Scenario: the HTTP API reports its health and a session's detail, and an unknown session is a 404 with a JSON body
    Given a reasoning session at stage cipher_loaded
    And Observatory client "watcher" subscribed to "observatory"
    When I record thoughts 1 to 2 of 4
    And Observatory client "watcher" receives "thought:added" on "observatory" for thought 2
    And Observatory client "follower" subscribed to "reasoning:{{sid}}"
    And I branch "b1" from thought 1 with thought 3
    And Observatory client "follower" receives "thought:branched" on "reasoning:{{sid}}" for thought 3
    And I GET "/api/health" from the Observatory
    Then the HTTP status is 200
    And the Observatory's answer has "status" equal to "ok"
    And the Observatory's answer's "connections" is at least 1
    And the Observatory's answer's "activeSessions" is at least 1
    When I GET "/api/sessions/{{sid}}" from the Observatory
    Then the HTTP status is 200
    And the Observatory's answer has "session.id" equal to "{{sid}}"
    And the Observatory's answer has "session.status" equal to "active"
    And the Observatory's answer's "thoughts" lists the thoughts 1, 2
    And the Observatory's answer's "branches.b1.thoughts" lists the thoughts 3
    And the Observatory's answer has "branches.b1.fromThoughtNumber" equal to 1
    When I GET "/api/sessions/no-such-session-{{nonce}}" from the Observatory
    Then the HTTP status is 404
    And the Observatory's answer has a string "error"

  @observatory-api
  Scenario Outline: a client that sends <garbage> gets an error, and another client is not disturbed
    Given a reasoning session at stage cipher_loaded
    And Observatory client "watcher" subscribed to "observatory"
    And Observatory client "noisy" connects
    When Observatory client "noisy" sends:
      """
      <frame>
      """
    Then Observatory client "noisy" receives an error on "<topic>" with code "<code>"
    When I record thoughts 1 to 1 of 2
    Then Observatory client "watcher" receives "thought:added" on "observatory" for thought 1
    And Observatory client "watcher" is still open

    Examples:
      | garbage                         | frame                                                     | topic                               | code              |
      | text that is not JSON           | this is not JSON {{nonce}}                                | error                               | INVALID_PAYLOAD   |
      | JSON that is not a 3-tuple      | {"topic": "observatory", "event": "subscribe"}            | error                               | INVALID_PAYLOAD   |
      | a subscription to no session    | ["reasoning:no-such-session-{{nonce}}", "subscribe", {}] | reasoning:no-such-session-{{nonce}} | SESSION_NOT_FOUND |

  @observatory-api @own-server
  Scenario: at the connection limit a new client is closed with 1008 and the others keep being served
    Given a reasoning session at stage cipher_loaded on a server of its own with its Observatory on and the settings "THOUGHTBOX_OBSERVATORY_MAX_CONN=2"
    And Observatory client "a" subscribed to "observatory"
    And Observatory client "b" subscribed to "observatory"
    When Observatory client "c" connects
    Then Observatory client "c" is closed with status 1008
    And the Observatory's health reports 2 connections
    When I record thoughts 1 to 1 of 2
    Then Observatory client "a" receives "thought:added" on "observatory" for thought 1
    And Observatory client "b" receives "thought:added" on "observatory" for thought 1
    When Observatory client "a" disconnects
    Then the Observatory's health reports 1 connection
    And Observatory client "d" subscribed to "observatory"
    And the Observatory lists the reasoning session with status "active" when asked for "?status=active"

  @observatory-api @own-server
  Scenario: the WebSocket path and the HTTP API setting are honoured
    Given a reasoning session at stage cipher_loaded on a server of its own with its Observatory on and the settings "THOUGHTBOX_OBSERVATORY_PATH=/live-{{nonce}}, THOUGHTBOX_OBSERVATORY_HTTP_API=false"
    Then Observatory client "stray" can not connect to the path "/ws"
    And Observatory client "watcher" subscribed to "observatory"
    When I record thoughts 1 to 1 of 2
    Then Observatory client "watcher" receives "thought:added" on "observatory" for thought 1
    When I GET "/api/health" from the Observatory
    Then the HTTP status is 404

  # THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT is the reference server's: it drops
  # the sleeper after 2 s instead of 10. A server without it is given the
  # 30 s of the last steps.
  @observatory-api @own-server
  Scenario: a client that never reads is dropped, and another client gets every thought
    Given a reasoning session at stage cipher_loaded on a server of its own with its Observatory on and the settings "THOUGHTBOX_OBSERVATORY_MAX_CONN=100, THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT=2s"
    And Observatory client "watcher" subscribed to "observatory"
    And Observatory client "sleeper" subscribes to "observatory" and never reads
    And the Observatory's health reports 2 connections
    When I record 32 thoughts of 256 KiB
    Then Observatory client "watcher" receives "thought:added" on "observatory" for thought 32
    And the Observatory's health reports 1 connection within 30 seconds
    And Observatory client "watcher" is still open
