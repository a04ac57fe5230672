# The knowledge graph (spec part C §3, decision D12) and the client's roots
# (list_roots / bind_root, decision D17). The knowledge scenarios start a
# server of their own with the setting they need (THOUGHTBOX_KNOWLEDGE_ENABLED)
# on a fresh data directory; against a URL they are not applicable.
@knowledge
Feature: Knowledge graph and client roots

  @core @own-server
  Scenario: the knowledge actions answer with their documented shapes, and traversal stops at max_depth
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "orchestrator-{{nonce}}", "type": "Concept", "label": "Orchestrator", "properties": {"k": 1}}
      """
    Then the call succeeds
    And the answer's "type" is "Concept"
    And I remember the answer's "entity_id" as "a"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "orchestrator-{{nonce}}", "type": "Insight", "label": "Same name, other type"}
      """
    Then I remember the answer's "entity_id" as "b"
    And "{{a}}" differs from "{{b}}"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "worker-{{nonce}}", "type": "Workflow", "label": "Worker"}
      """
    Then I remember the answer's "entity_id" as "c"
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{a}}", "to_id": "{{b}}", "relation_type": "BUILDS_ON"}
      """
    Then the answer's "from_id" is "{{a}}"
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{b}}", "to_id": "{{c}}", "relation_type": "RELATES_TO"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "{{a}}", "content": "seen in the gateway {{nonce}}"}
      """
    Then the answer's "entity_id" is "{{a}}"
    When I call "knowledge" with:
      """
      {"action": "get_entity", "entity_id": "{{a}}"}
      """
    Then the answer's "name" is "orchestrator-{{nonce}}"
    And the answer has "properties" equal to {"k": 1}
    When I call "knowledge" with:
      """
      {"action": "query_graph", "start_entity_id": "{{a}}"}
      """
    Then the answer has "entity_count" equal to 3
    And the answer has "relation_count" equal to 2
    When I call "knowledge" with:
      """
      {"action": "query_graph", "start_entity_id": "{{a}}", "max_depth": 1}
      """
    Then the answer has "entity_count" equal to 1
    And the answer has "relation_count" equal to 1
    When I call "knowledge" with:
      """
      {"action": "list_entities", "types": ["Concept"]}
      """
    Then the answer has "count" equal to 1
    When I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the answer has "entity_counts" equal to {"Concept": 1, "Insight": 1, "Workflow": 1}
    And the answer has "total_observations" equal to 1

  @intent @own-server
  Scenario: creating an entity twice returns the existing entity and writes nothing more
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "twice-{{nonce}}", "type": "Concept", "label": "First"}
      """
    Then I remember the answer's "entity_id" as "first"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "twice-{{nonce}}", "type": "Concept", "label": "Second"}
      """
    Then the call succeeds
    And the answer's "entity_id" is "{{first}}"
    And the knowledge log has 1 line
    When I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the answer has "entity_counts" equal to {"Concept": 1}

  @intent @own-server
  Scenario: a refused knowledge write appends nothing to the graph's log
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "kept-{{nonce}}", "type": "Decision", "label": "Kept"}
      """
    Then I remember the answer's "entity_id" as "kept"
    And the knowledge log has 1 line
    When I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "missing-{{nonce}}", "content": "about nothing"}
      """
    Then the call fails
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{kept}}", "to_id": "missing-{{nonce}}", "relation_type": "RELATES_TO"}
      """
    Then the call fails
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "unlabelled-{{nonce}}", "type": "Concept"}
      """
    Then the call fails naming "label"
    And the knowledge log has 1 line

  @intent @own-server
  Scenario: knowledge is off unless THOUGHTBOX_KNOWLEDGE_ENABLED turns it on, and the error says so
    Given a session at stage cipher_loaded on a server of its own with knowledge disabled
    When I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the call fails naming "THOUGHTBOX_KNOWLEDGE_ENABLED"

  @intent @own-server
  Scenario: the knowledge index is rebuilt from the log after memory.db is deleted
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "root-{{nonce}}", "type": "Concept", "label": "Root"}
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
    And I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then I keep the answer as "stats"
    When I call "knowledge" with:
      """
      {"action": "list_entities"}
      """
    Then I keep the answer as "entities"
    When the server of its own restarts after its knowledge index is deleted
    And I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the answer equals "stats" apart from "created_at, updated_at"
    When I call "knowledge" with:
      """
      {"action": "list_entities"}
      """
    Then the answer equals "entities" apart from "none"
    When I call "knowledge" with:
      """
      {"action": "query_graph", "start_entity_id": "{{root}}"}
      """
    Then the answer has "entity_count" equal to 2
    And the answer has "relation_count" equal to 1

  @core
  Scenario: list_roots returns the client's roots and bind_root binds one as the project
    Given a fresh MCP session whose client lists the roots "file:///srv/alpha-root" and "file:///srv/beta-root"
    When I call "list_roots"
    Then the answer names "file:///srv/alpha-root" and "file:///srv/beta-root"
    When I call "bind_root" with:
      """
      {"rootUri": "file:///srv/beta-root"}
      """
    Then the call succeeds
    And the answer's "boundRoot.uri" is "file:///srv/beta-root"
    When I call "start_new" with:
      """
      {}
      """
    Then the answer names "beta-root"

  @core
  Scenario: bind_root refuses a URI the client did not list
    Given a fresh MCP session whose client lists the roots "file:///srv/alpha-root" and "file:///srv/beta-root"
    When I call "bind_root" with:
      """
      {"rootUri": "file:///srv/gamma-{{nonce}}"}
      """
    Then the call fails naming "file:///srv/gamma-{{nonce}}"

  @intent
  Scenario: without the roots capability, list_roots and bind_root fail at once
    Given a fresh MCP session
    When I call "list_roots"
    Then the call fails
    And the call took less than 2 seconds
    When I call "bind_root" with:
      """
      {"rootUri": "file:///srv/alpha-root"}
      """
    Then the call fails
    And the call took less than 2 seconds
