# The export formats other than JSON (upstream-persistence-sessions §9.6) and
# the file behind exportPath. The markdown and cipher checks judge structure:
# the header, one section or line per main-chain thought in number order,
# revision markers (on thoughts with isRevision only), where branch thoughts go, and the cipher's 150 UTF-16
# code units with "..." when cut. Scenarios tagged @export-dir read the files
# the server writes; where its export directory is unknown they are not
# applicable.
Feature: Export formats and export files

  @core @sessions
  Scenario: a markdown export has a header and one section per main-chain thought, in number order
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Third first" with:
      """
      {"thoughtNumber": 3, "totalThoughts": 5, "nextThoughtNeeded": true, "sessionTitle": "Markdown {{nonce}}", "sessionTags": ["md", "t-{{nonce}}"]}
      """
    And I record thoughts 1 and 2 of 5
    And I revise thought 2 with thought 4
    And I branch "alt" from thought 2 with thought 5
    And I record the thought "Refers back to one, no revision" with:
      """
      {"revisesThought": 1, "nextThoughtNeeded": true}
      """
    And I export the session as markdown
    Then the markdown export lists the session's main chain in order, under a header
    When I export the session as markdown without metadata
    Then the markdown export lists the session's main chain in order, without a header

  @core @sessions
  Scenario: a cipher export has a header and one line per main-chain thought, cut at 150 code units
    Given a reasoning session at stage cipher_loaded
    When I record the thought "Hypothesis: we assume the cache is stale" with:
      """
      {"nextThoughtNeeded": true, "sessionTitle": "Cipher {{nonce}}", "sessionTags": ["ci", "t-{{nonce}}"]}
      """
    And I record a thought of exactly 150 UTF-16 code units with a line break
    And I record a thought of exactly 151 UTF-16 code units
    And I revise thought 1 with thought 4
    And I branch "alt" from thought 2 with thought 5
    And I record the thought "Refers back to one, no revision" with:
      """
      {"revisesThought": 1, "nextThoughtNeeded": true}
      """
    And I export the session as cipher
    Then the cipher export lists the session's main chain in order, under a header
    When I export the session as cipher without metadata
    Then the cipher export lists the session's main chain in order, without a header

  @core @sessions
  Scenario: the cipher counts UTF-16 code units, not characters
    Given a reasoning session at stage cipher_loaded
    When I record a thought of exactly 150 UTF-16 code units with an emoji
    And I record a thought of exactly 151 UTF-16 code units with an emoji
    And I export the session as cipher
    Then the cipher export lists the session's main chain in order, under a header

  @core @behavioural @export-dir
  Scenario: Test 11 - the file a close names holds the closed session's export
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I revise thought 2 with thought 4
    And I branch "alt" from thought 1 with thought 5
    And I record a closing thought
    Then the session was closed and exported
    And the file at exportPath holds the closed session's export

  @intent @behavioural @export-dir
  Scenario: Test 12 - the file a manual export names holds the export it returned
    Given a reasoning session at stage cipher_loaded
    When I record 3 thoughts
    And I branch "alt" from thought 1 with thought 4
    And I call "session" with:
      """
      {"operation": "export", "sessionId": "{{sid}}", "format": "json"}
      """
    Then the file at the answer's exportPath holds the export the answer returned
