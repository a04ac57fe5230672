# Suite C: durability and integrity (the seed's "Durability + integrity";
# decisions D8 and D15). These scenarios stop, kill and damage the server:
#   @restart         stops the server and starts it again on its data (over
#                    stdio every MCP session is a process of its own: the
#                    processes still running are stopped, the next session
#                    starts a new one);
#   @kill            kills it with SIGKILL, which needs a server in a child
#                    process (--command, or the embedded server as a child);
#   @data-dir        reads or changes its files, which needs its data
#                    directory (embedded, or THOUGHTBOX_DATA_DIR in --env);
#   @second-process  starts another process of the same server on the same
#                    data, as two stdio clients each starting a server do.
# Where the target cannot do what a tag asks (a URL, the in-process server for
# @kill, memory storage for all of them) the scenario is not applicable.
# Scenarios that restart or kill the server run alone. Damage is judged by the
# rule (an error naming the session or the damaged file), never by wording.
Feature: Durability

  @intent @durability @restart
  Scenario: an export after a graceful restart equals the export before it, apart from exportedAt
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I revise thought 2 with thought 4
    And I record 1 thought
    And I export the session
    And I keep the export as "before the restart"
    And the server restarts
    Given a reasoning session at stage init_complete
    When I export the session
    Then the export equals "before the restart" apart from exportedAt
    And the export has 6 nodes

  @intent @durability @kill
  Scenario: every thought acknowledged before a kill -9 reads back after the restart
    Given a reasoning session at stage cipher_loaded
    When I record 50 thoughts
    And I branch "after-kill" from thought 50 with thought 51
    And the server is killed with SIGKILL and started again
    Then every acknowledged thought reads back with its text

  @core @durability @kill @data-dir
  Scenario: the files a manifest lists are whole after a kill during large writes
    Given a reasoning session at stage cipher_loaded
    When I record 20 thoughts of 100 KiB each and the server is killed with SIGKILL while it writes them
    Then every file the session's manifest listed when the server was killed existed and parsed whole
    And every acknowledged thought reads back with its text

  @intent @durability @restart @data-dir
  Scenario Outline: load_context reports a session with <damage>, and neither advances the stage nor makes it current
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I remember the reasoning session as "damaged"
    And session "damaged" gets <damage> while the server is stopped
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I remember the reasoning session as "current"
    And I call "load_context" with:
      """
      {"sessionId": "{{damaged}}"}
      """
    Then the call reports the damage to session "damaged"
    When I record 1 thought
    Then the answer's "sessionId" is "{{current}}"
    When MCP session "fresh" opens
    And session "fresh" calls "load_context" with:
      """
      {"sessionId": "{{damaged}}"}
      """
    Then the call reports the damage to session "damaged"
    When session "fresh" calls "cipher"
    Then the call fails with a stage error: current stage "entry", required stage "init_complete"

    Examples:
      | damage                     |
      | an unreadable journal line |
      | a missing thought file     |

  @durability @restart @data-dir
  Scenario Outline: session resume reports a session with <damage> and leaves the current session as it was
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I remember the reasoning session as "damaged"
    And session "damaged" gets <damage> while the server is stopped
    Given a reasoning session at stage cipher_loaded
    When I record 1 thought
    And I remember the reasoning session as "current"
    And I call "session" with:
      """
      {"operation": "resume", "sessionId": "{{damaged}}"}
      """
    Then the call reports the damage to session "damaged"
    When I record 1 thought
    Then the answer's "sessionId" is "{{current}}"

    # 1.2.2 checks that every listed thought file exists on resume (it has
    # no journal); an unreadable journal line is the reference server's own.
    @core
    Examples:
      | damage                 |
      | a missing thought file |

    @intent
    Examples:
      | damage                     |
      | an unreadable journal line |

  @intent @durability @restart @data-dir
  Scenario: a stray temporary file in a session directory is removed at start-up
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I remember the reasoning session as "A"
    And session "A" gets a stray temporary file while the server is stopped
    Given a reasoning session at stage cipher_loaded
    Then the stray temporary file is gone
    And every acknowledged thought reads back with its text

  @intent @durability @second-process @restart
  Scenario: two server processes on one data directory see each other's sessions and lose no acknowledged thought
    Given a second server process on the same data
    And MCP session "B" opens on the second server process
    And session "B" reaches stage init_complete
    And a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I remember the reasoning session as "A"
    And session "B" calls "session" with:
      """
      {"operation": "get", "sessionId": "{{A}}"}
      """
    Then the call succeeds
    And the answer's "thoughts" has 2 items
    When session "B" calls "load_context" with:
      """
      {"sessionId": "{{A}}"}
      """
    And session "B" calls "cipher"
    And session "B" calls "thought" with:
      """
      {"thought": "From the second process {{nonce}}", "nextThoughtNeeded": true}
      """
    And session "default" calls "thought" with:
      """
      {"thought": "From the first process {{nonce}}", "nextThoughtNeeded": true}
      """
    And session "B" calls "thought" with:
      """
      {"thought": "From the second process again {{nonce}}", "nextThoughtNeeded": true}
      """
    Then after the second process stops and the server restarts, every acknowledged thought reads back with its text
