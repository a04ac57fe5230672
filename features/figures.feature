# Every figure the analyses compute, checked against the golden analysis
# session, whose expected values are worked out by hand from the
# definitions (spec B §6.2-6.3 revision analysis, §9.7 analyze, §9.8
# extract_learnings, §10 deep_analysis; spec A §6 get_structure; spec C §3.4
# knowledge stats; the data model's SessionAnalysis; decisions D7, D10, D24),
# never copied from a server's answer.
#
# The golden analysis session (harness/steps/figures_steps.go, goldenSession)
# is recorded in this order, every thought with totalThoughts 10:
#
#   thought  chain          revises  critique  UTF-16 units of its text
#   1        main           -        -         40
#   2        main           -        -         29
#   3        main           -        yes       44
#   4        alt (from 2)   -        -         37
#   5        alt (from 2)   -        -         31
#   6        alt (from 2)   -        -         36  (10 emoji: 20 units)
#   7        main           1        -         44
#   8        main           7        -         44  (a revision of a revision)
#   9        main           1        -         39  (an "é")
#   10       main, closes   -        -         36
#
# with the title "Golden figures <nonce>" and 2 tags. So: N = 10 thoughts,
# 7 on the main chain (1, 2, 3, 7, 8, 9, 10: head 1, tail 10), 3 on the
# branch "alt" (range 4 to 6), 1 branch, R = 3 revisions, 1 critique, the
# last thought recorded is the highest-numbered one and closes the session.
# Every thought number is used once, so a definition keyed by thought number
# (1.2.2's revision index) and one keyed by node give the same figures.
#
# Where 1.2.2 (main chain only) and the reference server (every thought, D7)
# compute the same value on this session, the figure is @core; where they
# differ, it is @intent and the 1.2.2 value is given beside the hand-worked
# one.
#
# Figures that depend on wall-clock time have no fixed value: they are
# checked by a relation a unit error breaks, using the timestamps the server
# itself reports for the thoughts (read back with read_thoughts). duration =
# the last thought's timestamp - the first's, in ms; thoughtDensity =
# thoughtCount / (duration / 60000), to 2 decimals, so a density per second
# is 60 times too small and a duration in seconds 1000 times too large.
Feature: Figures of the analyses against a golden session

  # analyze (spec B §9.7), on both servers' definitions:
  #   revisionCount = thoughts flagged isRevision = 7, 8, 9 = 3
  #   branchCount = the session's branches = {alt} = 1
  #   isComplete = the final thought (10) has nextThoughtNeeded false = true
  #   duration = span of the thoughts' timestamps (1.2.2: the main chain's,
  #     which holds the first and the last thought, 1 and 10: the same span)
  #   thoughtDensity = thoughtCount per minute of duration (data model:
  #     "Thoughts per minute"), whatever thoughtCount the server counts.
  @core @sessions
  Scenario: analyze of the golden session counts its revisions and branch and measures its time per minute
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "analyze", "sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the answer's "metadata.title" is "Golden figures {{nonce}}"
    And the answer has "metadata.tags" equal to ["figures", "golden-{{nonce}}"]
    And the answer has "metadata.revisionCount" equal to 3
    And the answer has "metadata.branchCount" equal to 1
    And the answer has "quality.isComplete" equal to true
    And the answer's "metadata.duration" is the golden session's span in milliseconds
    And the answer's "structure.thoughtDensity" is "metadata.thoughtCount" per minute of "metadata.duration" milliseconds, to 2 decimals

  # analyze with every thought counted (D7) and critiques counted (data
  # model: critiqueRequests = "Thoughts with critique enabled"; D10):
  #   thoughtCount = N = 10                          (1.2.2: 7)
  #   linearityScore = 1 - (R + branch thoughts)/N = 1 - (3 + 3)/10 = 0.4
  #                                                  (1.2.2: 1 - 3/7 = 0.57)
  #   revisionRate = R/N = 3/10 = 0.3                (1.2.2: 3/7 = 0.43)
  #   maxDepth = distinct branch ids = 1             (1.2.2: always 0)
  #   critiqueRequests = 1 (thought 3)               (1.2.2: always 0)
  #   hasConvergence = a main-chain thought (7) came after the last branch
  #     thought (6) = true                           (1.2.2: always false)
  #   createdAt is no later than thought 1; lastUpdatedAt no earlier than
  #     thought 10 (the session is created by its first thought and updated
  #     by every one).
  @intent @sessions
  Scenario: analyze of the golden session counts every thought, the branch's depth, the critique and the return to the main chain
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "analyze", "sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer has "metadata.thoughtCount" equal to 10
    And the answer has "structure.linearityScore" equal to 0.4
    And the answer has "structure.revisionRate" equal to 0.3
    And the answer has "structure.maxDepth" equal to 1
    And the answer has "quality.critiqueRequests" equal to 1
    And the answer has "quality.hasConvergence" equal to true
    And the answer's "metadata.createdAt" is no later than the golden session's first thought
    And the answer's "metadata.lastUpdatedAt" is no earlier than the golden session's last thought

  # extract_learnings (spec B §9.8) at its bounds: at most the first 5
  # decision/insight/pivot moments make patterns, at most the first 3
  # revision moments make anti-patterns; order patterns, anti-patterns,
  # signal. Exactly 5 pattern moments (1, 2, 3, 7, 8) and 3 revision
  # moments (7, 8, 9) give all of them:
  #   patterns: sourceThoughts [n] for n = 1, 2, 3, 7, 8
  #   anti-patterns: sourceThoughts [n, revisesThought] = [7, 1], [8, 7], [9, 1]
  #   signal: sourceThoughts []
  #   extractedCount = 5 + 3 + 1 = 9
  #   targetPath: experiments/<first 8 of sid>-thought-<n>.md,
  #     experiments/anti-<first 8 of sid>-thought-<revisesThought>.md,
  #     signals.jsonl
  #   behaviorCharacteristics of a pattern: 5, 5, 3, 1
  @core @sessions
  Scenario: extract_learnings at its bounds: five pattern moments make five patterns, three revision moments three anti-patterns
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "anti-pattern", "signal"],
       "keyMoments": [
         {"thoughtNumber": 1, "type": "decision", "significance": 8},
         {"thoughtNumber": 2, "type": "insight"},
         {"thoughtNumber": 3, "type": "pivot", "summary": "asked the CDN"},
         {"thoughtNumber": 7, "type": "revision"},
         {"thoughtNumber": 7, "type": "decision"},
         {"thoughtNumber": 8, "type": "revision"},
         {"thoughtNumber": 8, "type": "insight"},
         {"thoughtNumber": 9, "type": "revision"}]}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the answer has "extractedCount" equal to 9
    And the answer's "learnings" has 9 items
    And the learnings are pattern [1]; pattern [2]; pattern [3]; pattern [7]; pattern [8]; anti-pattern [7, 1]; anti-pattern [8, 7]; anti-pattern [9, 1]; signal []
    And every learning's target path names the session and its thought
    And every pattern learning scores specificity 5, applicability 5, complexity 3 and maturity 1
    And every learning and the signal were extracted at one time

  # One past each bound: a sixth pattern moment (decision on 10) and a
  # fourth revision moment (on 10) change nothing: the first five and the
  # first three are kept, extractedCount is still 5 + 3 + 1 = 9.
  @core @sessions
  Scenario: extract_learnings one past its bounds: six pattern moments still make five patterns, four revision moments three anti-patterns
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern", "anti-pattern", "signal"],
       "keyMoments": [
         {"thoughtNumber": 1, "type": "decision"},
         {"thoughtNumber": 2, "type": "insight"},
         {"thoughtNumber": 3, "type": "pivot"},
         {"thoughtNumber": 7, "type": "decision"},
         {"thoughtNumber": 8, "type": "insight"},
         {"thoughtNumber": 10, "type": "decision"},
         {"thoughtNumber": 7, "type": "revision"},
         {"thoughtNumber": 8, "type": "revision"},
         {"thoughtNumber": 9, "type": "revision"},
         {"thoughtNumber": 10, "type": "revision"}]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 9
    And the answer's "learnings" has 9 items
    And the learnings are pattern [1]; pattern [2]; pattern [3]; pattern [7]; pattern [8]; anti-pattern [7, 1]; anti-pattern [8, 7]; anti-pattern [9, 1]; signal []

  # Without key moments (spec B §9.8) no pattern is made: extractedCount 0,
  # no learnings, and a note (present only when patterns were asked for and
  # keyMoments is empty) says why.
  @core @sessions
  Scenario: extract_learnings without key moments makes no pattern and notes why
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["pattern"]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 0
    And the answer's "learnings" has 0 items
    And the answer has exactly the fields "sessionId", "extractedCount", "note" and "learnings"

  # The signal (spec B §9.8): "success" iff analyze's isComplete (true);
  # metrics branches = the session's branches = 1, revisions = R = 3,
  # duration = analyze's duration = the thoughts' span; one learning, so
  # extractedCount 1.
  @core @sessions
  Scenario: the signal of the golden session reports success with its branch, revisions and span
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}", "targetTypes": ["signal"]}
      """
    Then the call succeeds
    And the answer has "extractedCount" equal to 1
    And the learnings are signal []
    And every learning's target path names the session and its thought
    And the signal learning says "success" with the metrics {"branches": 1, "revisions": 3}
    And the signal learning's duration is the golden session's span in milliseconds

  # The signal's metrics are analyze's: thoughts = N = 10 (1.2.2: 7),
  # linearityScore = 0.4 (1.2.2: 0.57), critiqueUsage = critiqueRequests = 1
  # (1.2.2: 0). targetTypes defaults to ["signal"]: one learning, no note.
  @intent @sessions
  Scenario: the signal of the golden session counts every thought and its critique
    Given the golden analysis session is recorded
    When I call "session" with:
      """
      {"operation": "extract_learnings", "sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer has exactly the fields "sessionId", "extractedCount" and "learnings"
    And the learnings are signal []
    And the signal learning says "success" with the metrics {"thoughts": 10, "branches": 1, "revisions": 3, "linearityScore": 0.4, "critiqueUsage": 1}

  # deep_analysis full (spec B §10), on both servers' definitions:
  #   patterns.revisionCount = R = 3
  #   cognitiveLoad.depthIndicator = highest thought number = 10
  #   decision points of type revision, in thought-number order, reference =
  #     revisesThought: 7 of 1, 8 of 7, 9 of 1
  @core @sessions
  Scenario: deep_analysis of the golden session counts its revisions, its depth and its revision decision points
    Given the golden analysis session is recorded
    When I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "full"}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the answer's "analysisType" is "full"
    And the answer has "patterns.revisionCount" equal to 3
    And the answer has "cognitiveLoad.depthIndicator" equal to 10
    And the revision decision points are 7 of 1; 8 of 7; 9 of 1

  # deep_analysis answers the header (sessionId, analysisType, timestamp)
  # and the one section its analysisType names (spec B §10).
  @core @sessions
  Scenario Outline: deep_analysis of the golden session with analysisType <type> answers only <section>
    Given the golden analysis session is recorded
    When I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "<type>"}
      """
    Then the call succeeds
    And the answer's "analysisType" is "<type>"
    And the answer has exactly the fields "sessionId", "analysisType", "timestamp" and "<section>"

    Examples:
      | type            | section        |
      | patterns        | patterns       |
      | cognitive_load  | cognitiveLoad  |
      | decision_points | decisionPoints |

  # deep_analysis full with every thought counted (D7):
  #   patterns.totalThoughts = N = 10                            (1.2.2: 7)
  #   patterns.branchCount = distinct branch ids = 1             (1.2.2: 0)
  #   patterns.averageThoughtLength = round(sum of UTF-16 lengths / N)
  #     = round((40+29+44+37+31+36+44+44+39+36) / 10) = round(380/10) = 38
  #     (in code points 370/10 = 37, in UTF-8 bytes 401/10 = 40.1 -> 40;
  #     1.2.2, main chain only: round(276/7) = 39)
  #   cognitiveLoad.complexityScore = min(100, 5·N + 10·tags)
  #     = min(100, 50 + 20) = 70                                  (1.2.2: 55)
  #   cognitiveLoad.breadthIndicator = lines of reasoning = main + alt = 2
  #                                                               (1.2.2: 1)
  #   decisionPoints: every revision and the first thought of every branch
  #     (not every branch thought), in thought-number order: branch 4 from
  #     2 on alt, revision 7 of 1, revision 8 of 7, revision 9 of 1
  @intent @sessions
  Scenario: deep_analysis of the golden session counts every thought, the branch as a line of reasoning and its first thought as a decision point
    Given the golden analysis session is recorded
    When I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "full"}
      """
    Then the call succeeds
    And the answer has "patterns.totalThoughts" equal to 10
    And the answer has "patterns.branchCount" equal to 1
    And the answer has "patterns.averageThoughtLength" equal to 38
    And the answer has "cognitiveLoad.complexityScore" equal to 70
    And the answer has "cognitiveLoad.breadthIndicator" equal to 2
    And the decision points are branch 4 from 2 on alt; revision 7 of 1; revision 8 of 7; revision 9 of 1

  # deep_analysis patterns with the timeline (spec B §10): only the patterns
  # section and the timeline; durationEstimate = "~<2·N> minutes" =
  # "~20 minutes" (1.2.2: "~14 minutes"); durationMs (the reference's
  # measured span) = analyze's duration = the thoughts' span; createdAt and
  # updatedAt are the session's.
  @intent @sessions
  Scenario: deep_analysis of the golden session with a timeline estimates two minutes a thought and measures the span
    Given the golden analysis session is recorded
    When I call "deep_analysis" with:
      """
      {"sessionId": "{{sid}}", "analysisType": "patterns", "options": {"includeTimeline": true}}
      """
    Then the call succeeds
    And the answer has exactly the fields "sessionId", "analysisType", "timestamp", "patterns" and "timeline"
    And the answer's "timeline.durationEstimate" is "~20 minutes"
    And the answer's "timeline.durationMs" is the golden session's span in milliseconds
    And the answer's "timeline.createdAt" is no later than the golden session's first thought
    And the answer's "timeline.updatedAt" is no earlier than the golden session's last thought

  # get_structure (spec A §6), on both servers' definitions:
  #   mainChain: length 7, head = lowest main number 1, tail = highest 10
  #   revisions: [thought, revisesThought] of the main chain's revisions in
  #     thought-number order = [7, 1], [8, 7], [9, 1]; revisionCount 3
  @core @sessions
  Scenario: get_structure of the golden session reports its main chain and its revisions
    Given the golden analysis session is recorded
    When I call "get_structure" with:
      """
      {"sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer's "sessionId" is "{{sid}}"
    And the structure's main chain has length 7, head 1 and tail 10
    And the structure lists the revisions [[7, 1], [8, 7], [9, 1]]
    And the answer has "revisionCount" equal to 3

  # get_structure with the branches (D7): totalThoughts = N = 10 (1.2.2:
  # 7); branch alt forks from 2, range [lowest, highest] = [4, 6], length 3;
  # branchCount 1 (1.2.2: branches {} and 0).
  @intent @sessions
  Scenario: get_structure of the golden session reports every thought and the branch's fork, range and length
    Given the golden analysis session is recorded
    When I call "get_structure" with:
      """
      {"sessionId": "{{sid}}"}
      """
    Then the call succeeds
    And the answer has "totalThoughts" equal to 10
    And the answer has "branchCount" equal to 1
    And the structure reports branch "alt" forking from 2 with range 4 to 6 and length 3

  # revisionAnalysis of the linked export (spec B §6.3), of the export the
  # closing thought wrote and of session export json, on both servers'
  # definitions:
  #   totalRevisions = nodes that revise another = 7, 8, 9 = 3
  #   mostRevisedThought = the original thought with the most direct
  #     revisions: 1 (revised by 7 and 9; 7, revised by 8, is itself a
  #     revision) = {thoughtNumber 1, revisionCount 2}
  #   revisionDensity = totalRevisions / nodes × 100, to 1 decimal
  #     = 3/10 × 100 = 30
  # and each node's revisionMetadata (§6.2): isRevision = it revises a
  # node, revisesThought = that node's number, revisedBy = the numbers of
  # its direct revisions in order, revisionDepth = 1 + the depth of the
  # thought revised (0 for an original): node 1 is revised by 7 and 9,
  # node 7 (depth 1) by 8, node 8 has depth 2; branch node alt:4 is an
  # original nobody revised.
  @core @sessions
  Scenario: the golden session's exports count its revisions, its most revised thought and the revision density
    Given the golden analysis session is recorded
    When I read the export
    Then the export has 10 nodes
    And the export has "revisionAnalysis.totalRevisions" equal to 3
    And the export has "revisionAnalysis.mostRevisedThought" equal to {"thoughtNumber": 1, "revisionCount": 2}
    And the export has "revisionAnalysis.revisionDensity" equal to 30
    And node 1 of the export has the revision metadata {"isOriginal": true, "isRevision": false, "revisesThought": null, "revisedBy": [7, 9], "revisionDepth": 0}
    And node 7 of the export has the revision metadata {"isOriginal": false, "isRevision": true, "revisesThought": 1, "revisedBy": [8], "revisionDepth": 1}
    And node 8 of the export has the revision metadata {"isOriginal": false, "isRevision": true, "revisesThought": 7, "revisedBy": [], "revisionDepth": 2}
    And node 9 of the export has the revision metadata {"isRevision": true, "revisesThought": 1, "revisedBy": [], "revisionDepth": 1}
    And node alt:4 of the export has the revision metadata {"isOriginal": true, "isRevision": false, "revisedBy": [], "revisionDepth": 0}
    When I export the session
    Then the export has 10 nodes
    And the export has "revisionAnalysis.totalRevisions" equal to 3
    And the export has "revisionAnalysis.mostRevisedThought" equal to {"thoughtNumber": 1, "revisionCount": 2}
    And the export has "revisionAnalysis.revisionDensity" equal to 30
    And node 1 of the export has the revision metadata {"revisedBy": [7, 9], "revisionDepth": 0}
    And node 8 of the export has the revision metadata {"revisesThought": 7, "revisionDepth": 2}

  # revisionAnalysis and revision metadata as D24 defines them:
  #   avgTemporalDistance = mean |thought - revisesThought| over the
  #     revisions = (|7-1| + |8-7| + |9-1|) / 3 = (6 + 1 + 8) / 3 = 5
  #     (1.2.2: always 0)
  #   a revision of a revision belongs to the chain of the thought first
  #     revised: 7 and 9 have depth 1, 8 depth 2, all in the chain of
  #     thought 1 (1.2.2: 8 in the chain of 7)
  @intent @sessions
  Scenario: the golden session's exports measure the revisions' distance and place the revision of a revision in its root's chain
    Given the golden analysis session is recorded
    When I read the export
    Then the export has "revisionAnalysis.avgTemporalDistance" equal to 5
    And node 7 of the export has revision depth 1 in the chain of thought 1
    And node 8 of the export has revision depth 2 in the chain of thought 1
    And node 9 of the export has revision depth 1 in the chain of thought 1
    When I export the session
    Then the export has "revisionAnalysis.avgTemporalDistance" equal to 5
    And node 8 of the export has revision depth 2 in the chain of thought 1

  # knowledge stats (spec C §3.4) of a fresh graph, then of a known one:
  #   empty: entity_counts {}, relation_counts {}, total_observations 0,
  #     avg_observations_per_entity 0 (no entities)
  #   entities A, B (Concept), C (Insight), D (Decision); creating A again
  #     adds no entity (1.2.2 refuses it, D12 returns A): Concept 2,
  #     Decision 1, Insight 1
  #   relations A->B, B->C BUILDS_ON, C->D RELATES_TO: BUILDS_ON 2,
  #     RELATES_TO 1
  #   observations 2 on A, 1 on C: total 3; average 3 / 4 entities = 0.75
  @core @knowledge @own-server
  Scenario: knowledge stats count the entities and relations by type and the observations of a known graph
    Given a session at stage cipher_loaded on a server of its own with knowledge enabled
    When I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the call succeeds
    And the answer has "entity_counts" equal to {}
    And the answer has "relation_counts" equal to {}
    And the answer has "total_observations" equal to 0
    And the answer has "avg_observations_per_entity" equal to 0
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "a-{{nonce}}", "type": "Concept", "label": "A"}
      """
    Then I remember the answer's "entity_id" as "a"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "b-{{nonce}}", "type": "Concept", "label": "B"}
      """
    Then I remember the answer's "entity_id" as "b"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "c-{{nonce}}", "type": "Insight", "label": "C"}
      """
    Then I remember the answer's "entity_id" as "c"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "d-{{nonce}}", "type": "Decision", "label": "D"}
      """
    Then I remember the answer's "entity_id" as "d"
    When I call "knowledge" with:
      """
      {"action": "create_entity", "name": "a-{{nonce}}", "type": "Concept", "label": "A again"}
      """
    And I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{a}}", "to_id": "{{b}}", "relation_type": "BUILDS_ON"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{b}}", "to_id": "{{c}}", "relation_type": "BUILDS_ON"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "create_relation", "from_id": "{{c}}", "to_id": "{{d}}", "relation_type": "RELATES_TO"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "{{a}}", "content": "first on A {{nonce}}"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "{{a}}", "content": "second on A {{nonce}}"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "add_observation", "entity_id": "{{c}}", "content": "on C {{nonce}}"}
      """
    Then the call succeeds
    When I call "knowledge" with:
      """
      {"action": "stats"}
      """
    Then the call succeeds
    And the answer has "entity_counts" equal to {"Concept": 2, "Decision": 1, "Insight": 1}
    And the answer has "relation_counts" equal to {"BUILDS_ON": 2, "RELATES_TO": 1}
    And the answer has "total_observations" equal to 3
    And the answer has "avg_observations_per_entity" equal to 0.75
