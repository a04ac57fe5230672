# Suite C: durability (D8, D10, D15, D26). What a server acknowledged
# survives a graceful restart, read back through every read path, on every
# store that keeps data (fs, sqlite), over HTTP and stdio; and the
# filesystem layout commits every file atomically. Tags as in
# durability.feature:
#   @restart   stops the server and starts it again on its data;
#   @data-dir  reads the server's files: a session directory with
#              manifest.json listing NNN.json thought files (the layout of
#              1.2.2 and of the reference server); a target whose data
#              directory holds another layout is not applicable, naming it.
#              The write-order scenario watches the directory with inotify
#              (Linux).
# "Every read path" is read_thoughts in each of its modes, get_structure,
# session list, search, export (json, markdown, cipher), get and analyze,
# deep_analysis, observability_gateway sessions and session_info, the
# thought-query resources, load_context and session resume. Knowledge reads
# are stats, list_entities, get_entity and query_graph from every entity,
# and the knowledge/stats resource. Between two reads of unchanged data only
# these may differ: lastAccessedAt (kept in memory only,
# upstream-persistence-sessions §1.3) and the list's lastActivity and status
# derived from it; exportedAt and exportPath (D8, D9); the contextId a load
# mints (D26); the knowledge graph's access_count and last_accessed_at,
# which its reads bump (upstream-models-notebook-knowledge-resources §3);
# the time an answer was made (deep_analysis's timestamp, the knowledge
# stats' created_at and updated_at); and times inside texts (the markdown
# export). A time that is a field's whole value is data, and compared; but
# where reading a session changes its updatedAt (1.2.2's get, resume and
# load, upstream-persistence-sessions §9.3), updatedAt is volatile too.
Feature: Restart

  @intent @durability @restart
  Scenario: every read path answers after a graceful restart what it answered before it
    Given a reasoning session at stage cipher_loaded whose client answers sampling requests
    When I record the thought "First thought of the restart session" with:
      """
      {"nextThoughtNeeded": true, "sessionTitle": "Restart {{nonce}}", "sessionTags": ["restart", "t-{{nonce}}"]}
      """
    And I record 2 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I branch "other" from thought 3 with thought 5
    And I revise thought 2 with thought 4
    And I record a thought asking for a critique
    And I record the thought "An attributed thought" with:
      """
      {"nextThoughtNeeded": true, "agentId": "agent-{{nonce}}", "agentName": "Restart agent"}
      """
    And I record 1 thought
    And I read the session through every read path and keep the answers as "before the restart"
    And the server restarts
    Then every read path answers as "before the restart", apart from volatile fields
    And the answers kept as "before the restart" list the session with at least 7 thoughts and 2 branches, and read back a critique

  @intent @durability @restart
  Scenario: reading a session again after a restart changes none of its answers
    Given a reasoning session at stage cipher_loaded
    When I record the thought "First thought of the twice-read session" with:
      """
      {"nextThoughtNeeded": true, "sessionTitle": "Twice read {{nonce}}", "sessionTags": ["twice"]}
      """
    And I record 2 thoughts
    And I branch "alt" from thought 1 with thought 3
    And the server restarts
    And I read the session through every read path and keep the answers as "first read after the restart"
    And the server restarts
    Then every read path answers as "first read after the restart", apart from volatile fields

  @intent @durability @restart
  Scenario: a session continued after a restart keeps what it had and what it gained through the next restart
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I branch "early" from thought 1 with thought 3
    And I remember the reasoning session as "A"
    And the server restarts
    Given a reasoning session at stage entry
    When I call "load_context" with:
      """
      {"sessionId": "{{A}}"}
      """
    And I call "cipher"
    And I record 2 thoughts
    Then the answer has thoughtNumber 4
    And the answer's "sessionId" is "{{A}}"
    When I read the session through every read path and keep the answers as "continued"
    And the server restarts
    Then every read path answers as "continued", apart from volatile fields
    And every acknowledged thought reads back with its text

  @intent @durability @data-dir
  Scenario: a thought rewrites the manifest and the thought before it as new files, never in place
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I note the files of the reasoning session
    And I record 1 thought
    Then every file of the session the write changed is a new file

  @intent @durability @data-dir
  Scenario: a thought's file is committed by a rename before the manifest that lists it
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And I record 1 thought while watching the files of the reasoning session
    Then every file of the session the write committed was committed by a rename
    And the new thought's file was committed before the manifest that lists it

  # In the knowledge suite: the graph is kept apart from the session store,
  # in every storage mode (D12), on a server of the scenario's own.
  @intent @knowledge @own-server
  Scenario: every knowledge read answers after a graceful restart what it answered before it
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "root-{{nonce}}", "type": "Concept", "label": "Root", "properties": {"weight": 2}}
      """
    Then I remember the answer's "entity_id" as "root"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "leaf-{{nonce}}", "type": "Insight", "label": "Leaf"}
      """
    Then I remember the answer's "entity_id" as "leaf"
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{root}}", "to_id": "{{leaf}}", "relation_type": "DEPENDS_ON"}
      """
    And I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "{{leaf}}", "content": "noted {{nonce}}"}
      """
    And I read the knowledge graph through every read path and keep the answers as "before the restart"
    And the server of its own restarts
    Then every knowledge read path answers as "before the restart", apart from volatile fields

  # In the sessions suite, beside the other scenarios of contexts (D26).
  @intent @sessions @restart @era-2026
  Scenario: a context outlives a graceful restart, at its stage and in its reasoning session
    Given a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And the server restarts, and MCP session "after" opens in the context of session "default"
    And session "after" calls "thought" with:
      """
      {"thought": "The third step, after the restart {{nonce}}", "nextThoughtNeeded": true}
      """
    Then the call succeeds
    And the answer has thoughtNumber 3
    And the answer's "sessionId" is "{{sid}}"
