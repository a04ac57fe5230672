# The JSONL event stream (decision D20, spec part C §6.5) and the errors of
# observability_gateway when Prometheus and Grafana cannot be used (§5).
# The scenarios that read the event file, or need a server pointed at a
# Prometheus of the harness's choosing, start a server of their own with the
# settings they need (THOUGHTBOX_EVENTS_ENABLED and THOUGHTBOX_EVENTS_DEST;
# PROMETHEUS_URL and GRAFANA_URL); against a URL they are not applicable.
Feature: Event stream and observability_gateway

  @events @intent @own-server
  Scenario: a golden session emits every event type of the data model
    Given a session at stage cipher_loaded on a server of its own writing events to a file
    When I record thoughts 1 to 2 of 4
    And I revise thought 1 with thought 3
    And I branch "alt" from thought 2 with thought 4
    And I record a closing thought
    And MCP session "second" opens on the server of its own
    And session "second" calls "load_context" with:
      """
      {"sessionId": "{{sid}}"}
      """
    Then the call succeeds
    When session "second" calls "session" with:
      """
      {"operation": "export", "sessionId": "{{sid}}", "format": "markdown"}
      """
    Then the call succeeds
    And the event file holds every event type of the data model
    And the event file has 5 "thought_added" events
    And the event file has 1 "thought_revised" event
    And the event file has 1 "branch_created" event
    And the event file has 1 "session_started" event
    And every line of the event file follows the data model
    And the events about thoughts name the reasoning session

  @events @intent @own-server
  Scenario: the event stream is off unless it is turned on
    Given a session at stage cipher_loaded on a server of its own with the event stream off
    When I record thoughts 1 to 2 of 2
    Then no event file is written

  # The data model's thought_added carries at most 100 characters of the
  # thought: a thought of 100 whole, one of 101 cut.
  @events @intent @own-server
  Scenario: a thought_added event carries a thought of 100 characters whole and cuts one of 101
    Given a session at stage cipher_loaded on a server of its own writing events to a file
    When I record a thought of 100 characters
    Then its "thought_added" event carries the thought whole
    When I record a thought of 101 characters
    Then its "thought_added" event carries the thought cut to 100 characters
    And every line of the event file follows the data model

  @observability @intent @own-server
  Scenario: with nothing reachable, health answers and says why each service is not healthy
    Given a fresh MCP session on a server of its own whose Prometheus and Grafana cannot be reached
    When I call observability "health"
    Then the health of "prometheus", "grafana" and "sidecar" is not healthy and each says why
    And the call took less than 15 seconds

  @observability @intent @own-server
  Scenario Outline: with Prometheus unreachable, <operation> is an error, not a hang
    Given a fresh MCP session on a server of its own whose Prometheus and Grafana cannot be reached
    When I call observability "<operation>" with:
      """
      <args>
      """
    Then the call fails with an error message
    And the call took less than 15 seconds

    Examples:
      | operation     | args                                        |
      | metrics       | {"query": "up"}                             |
      | metrics_range | {"query": "up", "start": "1", "end": "2"}   |
      | alerts        | {}                                          |

  @observability @intent @own-server
  Scenario: a Prometheus that never answers gives an error within the time limit
    Given a fresh MCP session on a server of its own whose Prometheus and Grafana never answer
    When I call observability "metrics" with:
      """
      {"query": "up"}
      """
    Then the call fails with an error message
    And the call took less than 15 seconds

  @observability @intent @own-server
  Scenario: a Prometheus that answers 500 gives an error naming the status
    Given a fresh MCP session on a server of its own whose Prometheus and Grafana answer 500
    When I call observability "metrics" with:
      """
      {"query": "up"}
      """
    Then the call fails naming "500"

  @observability @intent @own-server
  Scenario: dashboard_url links into the configured Grafana without calling it
    Given a fresh MCP session on a server of its own whose Prometheus and Grafana cannot be reached
    When I call observability "dashboard_url" with:
      """
      {"dashboard": "my-dash"}
      """
    Then the call succeeds
    And the answer's "url" is "{{grafana}}/d/my-dash/my-dash"
    And the answer's "dashboard" is "my-dash"

  @observability @intent
  Scenario: a range query without its end is refused naming the argument
    Given a fresh MCP session
    When I call observability "metrics_range" with:
      """
      {"query": "up", "start": "1"}
      """
    Then the call fails naming "end"
