# HTTP-level behaviour of the Streamable HTTP transport. These scenarios need
# an HTTP target; over stdio they are not applicable.
Feature: Streamable HTTP transport

  @core @transport @http
  Scenario: GET /health answers ok
    When I GET "/health"
    Then the HTTP status is 200
    And the HTTP body has "status" equal to "ok"

  @core @transport @http @era-2025
  Scenario: a request without a session id, other than initialize, is refused
    When I POST to the MCP endpoint without a session id:
      """
      {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
      """
    Then the HTTP status is 400

  @core @transport @http
  Scenario: a notification is answered 202 without a body
    Given a fresh MCP session
    When I POST to the MCP endpoint in my session:
      """
      {"jsonrpc": "2.0", "method": "notifications/initialized"}
      """
    Then the HTTP status is 202

  @intent @transport @http @era-2025
  Scenario: a session id the server never issued gets 404
    When I POST to the MCP endpoint with the session id "6d1e1b2c-0000-4000-8000-{{nonce}}0000":
      """
      {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
      """
    Then the HTTP status is 404

  @intent @transport @http @era-2025
  Scenario: after DELETE the session id is unknown
    Given a fresh MCP session
    When I DELETE my session
    Then the HTTP status is 200
    When I POST to the MCP endpoint in my session:
      """
      {"jsonrpc": "2.0", "id": 2, "method": "ping"}
      """
    Then the HTTP status is 404

  @intent @transport @http
  Scenario: bodies up to 4 MiB are accepted, larger ones get 413
    Given a fresh MCP session
    When I POST a body of exactly 4194304 bytes to the MCP endpoint in my session
    Then the HTTP answer is a JSON-RPC result
    When I POST a body of exactly 4194305 bytes to the MCP endpoint in my session
    Then the HTTP status is 413
    And the HTTP body is a JSON-RPC error

  @intent @transport @http
  Scenario: a foreign Host or Origin header is refused (DNS-rebinding protection)
    When I POST an initialize to the MCP endpoint with the header "Host" set to "evil.example"
    Then the HTTP status is 403
    When I POST an initialize to the MCP endpoint with the header "Origin" set to "http://evil.example"
    Then the HTTP status is 403

  @core @transport
  Scenario: tools/list shows exactly the two gateway tools with their operations
    Given a fresh MCP session
    When I list the tools
    Then the tools are "thoughtbox_gateway, observability_gateway"
    And the "thoughtbox_gateway" operations are "get_state, list_sessions, navigate, load_context, start_new, list_roots, bind_root, cipher, thought, read_thoughts, get_structure, notebook, session, mental_models, deep_analysis, knowledge"
    And the "observability_gateway" operations are "health, metrics, metrics_range, sessions, session_info, alerts, dashboard_url"

  @core @transport
  Scenario: the patterns cookbook is a resource
    Given a fresh MCP session
    When I read the resource "thoughtbox://patterns-cookbook"
    Then the resource text starts with "# Thoughtbox Patterns Cookbook"
