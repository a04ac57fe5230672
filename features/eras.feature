# MCP 2026-07-28, the stateless era (decisions D26-D28): what a server of
# that era must do that 2025-11-25 had no word for. These scenarios run only
# when the run speaks that era (--era); the ones for MCP sessions carry
# @era-2025 in transport.feature.
Feature: The 2026-07-28 era's own rules

  @core @transport @era-2026
  Scenario: server/discover names the versions the server speaks
    Given a fresh MCP session
    When I ask the server "server/discover"
    Then the result's "supportedVersions" lists "2026-07-28"
    And the result's "resultType" is "complete"

  @core @transport @era-2026
  Scenario: a list result says how long it may be cached
    Given a fresh MCP session
    When I ask the server "tools/list"
    Then the result's "resultType" is "complete"
    And the result has a number "ttlMs"

  @core @transport @http @era-2026
  Scenario: a request whose Mcp-Method header does not match its body is refused with -32020
    Given a fresh MCP session
    When I POST to the MCP endpoint in my session with the header "Mcp-Method" set to "prompts/list":
      """
      {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
      """
    Then the HTTP status is 400
    And the HTTP body is a JSON-RPC error with code -32020

  @core @transport @http @era-2026
  Scenario: a request whose Mcp-Name header does not match the tool it calls is refused with -32020
    Given a fresh MCP session
    When I POST to the MCP endpoint in my session with the header "Mcp-Name" set to "observability_gateway":
      """
      {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "thoughtbox_gateway", "arguments": {"operation": "get_state"}}}
      """
    Then the HTTP status is 400
    And the HTTP body is a JSON-RPC error with code -32020

  @intent @transport @http @era-2026
  Scenario: a protocol version the server does not speak is refused with -32022
    Given a fresh MCP session
    When I POST to the MCP endpoint in my session with the header "Mcp-Protocol-Version" set to "2099-01-01":
      """
      {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}
      """
    Then the HTTP status is 400
    And the HTTP body is a JSON-RPC error with code -32022

  @intent @durability @second-process @era-2026
  Scenario: a context started on one server process goes on through another on the same data
    Given a second server process on the same data
    And a reasoning session at stage cipher_loaded
    When I record 2 thoughts
    And MCP session "B" opens on the second server process in the context of session "default"
    And session "B" calls "thought" with:
      """
      {"thought": "The third step, through another process {{nonce}}", "nextThoughtNeeded": false}
      """
    Then the call succeeds
    And the answer has thoughtNumber 3

  @intent @sessions @own-server @era-2026
  Scenario: a context idle longer than the session timeout expires, and the error names it
    Given MCP session "A" opens on a server of its own whose session timeout is "1s"
    And session "A" calls "start_new" with:
      """
      {"newWork": {"project": "expiry-{{nonce}}"}}
      """
    And session "A" calls "cipher"
    Then the call succeeds
    When 3 seconds pass
    And session "A" calls "cipher"
    Then the call fails
    And the answer names the context of session "A"
