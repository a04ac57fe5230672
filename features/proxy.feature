# The harness drives its traffic through the mcp-sidecar proxy. These
# scenarios compare answers given directly with answers given through it:
# the proxy must be transparent. Without a proxy in the path (--direct) they
# are not applicable.
Feature: Transparency of the sidecar proxy

  @core @sidecar @proxy
  Scenario Outline: golden sequence "<fixture>" gives the same answers directly and through the sidecar
    When I play the golden sequence "<fixture>" directly and through the sidecar
    Then both plays gave the same answers

    Examples:
      | fixture  |
      | forward  |
      | backward |
      | branch   |
      | revision |
      | gaps     |

  @core @sidecar @proxy @http
  Scenario: HTTP answers to protocol errors are the same directly and through the sidecar
    When I send the protocol-error requests directly and through the sidecar
    Then both got the same HTTP statuses and bodies
