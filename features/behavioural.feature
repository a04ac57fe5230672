# The behavioural tests 1-22 of the Thoughtbox tool, expressed through the
# gateway (decision D1: thought and session export stand in for the
# "thoughtbox" and "export_reasoning_chain" tools of the original document).
Feature: Behavioural tests of the thought operation

  Background:
    Given a reasoning session at stage cipher_loaded

  @core @behavioural
  Scenario: Test 1 - forward thinking with the guide at the first thought
    When I record the thought "First of three" with:
      """
      {"thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": true, "verbose": true}
      """
    Then the answer has thoughtNumber 1, totalThoughts 3 and nextThoughtNeeded true
    And the answer carries the patterns cookbook
    When I record the thought "Second of three" with:
      """
      {"thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": true, "verbose": true}
      """
    Then the answer carries no resources
    When I record the thought "Third of three" with:
      """
      {"thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": false, "verbose": true}
      """
    Then the session was closed and exported
    And the answer carries no resources

  @core @behavioural
  Scenario: Test 2 - backward thinking creates the session at the goal thought
    When I record the thought "Goal state reached" with:
      """
      {"thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": true,
       "sessionTitle": "Backward {{nonce}}", "sessionTags": ["backward", "t2"]}
      """
    Then the answer has a sessionId
    When I record thoughts 4 down to 1 and close
    Then the thought numbers were 4, 3, 2, 1
    And the session was closed and exported
    When I read the export
    Then the export's session has title "Backward {{nonce}}" and tags "backward, t2"
    And the export has 5 nodes

  @core @behavioural
  Scenario: Test 3 - two branches from the same thought are both tracked
    When I record thoughts 1 to 3 of 5
    And I branch "option-a" from thought 2 with thought 4
    And I branch "option-b" from thought 2 with thought 4
    Then the verbose answer lists branches "option-a, option-b"
    When I record the thought "Synthesis" with:
      """
      {"thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": true}
      """
    Then the call succeeds

  @core @behavioural
  Scenario: Test 4 - a revision is recorded with the thought it revises
    When I record 3 thoughts
    And I revise thought 2 with thought 4
    And I call "read_thoughts" with:
      """
      {"thoughtNumber": 4}
      """
    Then thought 4 is a revision of thought 2

  @core @behavioural
  Scenario: Test 5 - the guide on request, mid-stream, with the six patterns
    When I record the thought "Halfway" with:
      """
      {"thoughtNumber": 10, "totalThoughts": 20, "nextThoughtNeeded": true, "includeGuide": true, "verbose": true}
      """
    Then the answer carries the patterns cookbook
    And the cookbook names the six patterns

  @core @behavioural
  Scenario: Test 6 - the estimate of total thoughts can grow
    When I record the thought "Start" with:
      """
      {"thoughtNumber": 1, "totalThoughts": 5, "nextThoughtNeeded": true}
      """
    And I record thoughts 2 to 3 of 5
    And I record the thought "Needs more" with:
      """
      {"thoughtNumber": 4, "totalThoughts": 10, "needsMoreThoughts": true, "nextThoughtNeeded": true, "verbose": true}
      """
    Then the answer has thoughtNumber 4, totalThoughts 10 and nextThoughtNeeded true
    When I record thoughts 5 to 10 of 10
    Then the thought numbers were 5, 6, 7, 8, 9, 10

  @core @behavioural
  Scenario: Test 7 - validation: required fields, automatic numbers, raised totals, clear type errors
    When I call "thought" with:
      """
      {"nextThoughtNeeded": true}
      """
    Then the call fails with the error "Missing required parameters"
    When I record the thought "No number given" with:
      """
      {"nextThoughtNeeded": true}
      """
    Then the answer has thoughtNumber 1
    When I record the thought "Beyond the estimate" with:
      """
      {"thoughtNumber": 3, "totalThoughts": 2, "nextThoughtNeeded": true, "verbose": true}
      """
    Then the answer has thoughtNumber 3, totalThoughts 3 and nextThoughtNeeded true
    When I call "thought" with:
      """
      {"thought": "x", "nextThoughtNeeded": "yes"}
      """
    Then the call fails with the error "Invalid nextThoughtNeeded: must be a boolean"

  @core @behavioural
  Scenario: Test 8 - thoughts form a doubly linked chain by creation order
    When I record 3 thoughts
    And I export the session
    Then the export links the nodes:
      | node | prev | next |
      | 1    |      | 2    |
      | 2    | 1    | 3    |
      | 3    | 2    |      |

  @core @behavioural
  Scenario: Test 9 - branches make a tree with several children
    When I record 3 thoughts
    And I branch "option-a" from thought 3 with thought 4
    And I branch "option-b" from thought 3 with thought 5
    And I export the session
    Then the export links the nodes:
      | node       | prev | next                   | branchOrigin | branchId |
      | 3          | 2    | option-a:4, option-b:5 |              |          |
      | option-a:4 | 3    |                        | 3            | option-a |
      | option-b:5 | 3    |                        | 3            | option-b |

  @core @behavioural
  Scenario: Test 10 - a revision stays in the sequential chain and points back
    When I record 3 thoughts
    And I revise thought 2 with thought 4
    And I export the session
    Then the export links the nodes:
      | node | prev | next | revisesNode |
      | 3    | 2    | 4    |             |
      | 4    | 3    |      | 2           |
    And node 4 comes after node 3 in the export

  @core @behavioural
  Scenario: Test 11 - closing the session exports it
    When I record 3 thoughts
    And I record a closing thought
    Then the session was closed and exported
    When I read the export
    Then the export has version "1.0", a session object and 4 nodes
    And the export file is named after the session and a timestamp

  @intent @behavioural @export-dir
  Scenario: Test 11 - the export lands in the configured export directory
    When I record 1 thought
    And I record a closing thought
    Then the export path is in the server's export directory

  @core @behavioural
  Scenario: Test 12 - exporting by hand leaves the session open
    When I record 3 thoughts
    And I export the session
    Then the export has version "1.0", a session object and 3 nodes
    When I export the session
    And I record 1 thought
    Then the thought numbers were 4

  @intent @behavioural
  Scenario: Test 12 - a manual export reports its file and node count
    When I record 3 thoughts
    And I call "session" with:
      """
      {"operation": "export", "sessionId": "{{sid}}", "format": "json"}
      """
    Then the answer has "nodeCount" equal to 3
    And the answer's "exportPath" names a file

  @core @behavioural
  Scenario: Test 13 - node ids are {sessionId}:{thoughtNumber}, branch ids add the branch
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I revise thought 1 with thought 4
    And I export the session
    Then every node id and link in the export has the documented form

  @core @behavioural
  Scenario: Test 14 - backward thinking links 5 to 1 by creation order
    When I record thoughts 5 down to 1
    And I read the export
    Then the export links the nodes:
      | node | prev | next |
      | 5    |      | 4    |
      | 4    | 5    | 3    |
      | 3    | 4    | 2    |
      | 2    | 3    | 1    |
      | 1    | 2    |      |

  @core @behavioural
  Scenario: Test 15 - gaps in thought numbers keep one contiguous chain
    When I record thoughts 1, 5, 8 and 10 of 10
    And I read the export
    Then the export links the nodes:
      | node | prev | next |
      | 1    |      | 5    |
      | 5    | 1    | 8    |
      | 8    | 5    | 10   |
      | 10   | 8    |      |

  @core @behavioural
  Scenario: Test 16 - read one thought by number
    When I record 3 thoughts
    And I call "read_thoughts" with:
      """
      {"thoughtNumber": 2}
      """
    Then I get thoughts 2
    And every thought read carries the run's nonce

  @core @behavioural
  Scenario: Test 17 - read the last N thoughts
    When I record 5 thoughts
    And I call "read_thoughts" with:
      """
      {"last": 2}
      """
    Then I get thoughts 4, 5

  @core @behavioural
  Scenario: Test 18 - read an inclusive range
    When I record 5 thoughts
    And I call "read_thoughts" with:
      """
      {"range": [2, 4]}
      """
    Then I get thoughts 2, 3, 4

  @core @behavioural
  Scenario: Test 19 - read one branch only
    When I record 3 thoughts
    And I branch "option-a" from thought 2 with thought 4
    And I branch "option-b" from thought 2 with thought 5
    And I call "read_thoughts" with:
      """
      {"branchId": "option-a"}
      """
    Then I get thoughts 4
    And every thought read is on branch "option-a"

  @core @behavioural
  Scenario: Test 20 - read another session without switching to it
    When I record 3 thoughts
    And I remember the reasoning session as "A"
    And I record a closing thought
    And I record 2 thoughts
    And I call "read_thoughts" with:
      """
      {"sessionId": "{{A}}", "last": 3}
      """
    Then I get thoughts 2, 3, 4
    When I call "read_thoughts"
    Then I get 2 thoughts
    And the read session is not "{{A}}"

  @core @behavioural
  Scenario: Test 21 - the structure shows topology without thought text
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I revise thought 1 with thought 4
    And I call "get_structure"
    Then the structure's main chain has length 4, head 1 and tail 4
    And the structure lists the revisions [[4, 1]]
    And the answer contains no thought text

  @intent @behavioural
  Scenario: Test 21 - the structure reports branches
    When I record 3 thoughts
    And I branch "alt" from thought 2 with thought 4
    And I branch "alt" from thought 2 with thought 5
    And I call "get_structure"
    Then the structure reports branch "alt" forking from 2 with range 4 to 5 and length 2

  @intent @behavioural
  Scenario: Test 22 - thoughts carry and keep their agent attribution
    When I record the thought "Plan the work" with:
      """
      {"nextThoughtNeeded": true, "agentId": "agent-001", "agentName": "Planner Agent", "verbose": true}
      """
    Then the answer has "agentId" equal to "agent-001"
    And the answer has "agentName" equal to "Planner Agent"
    When I record the thought "Check the plan" with:
      """
      {"nextThoughtNeeded": true, "agentId": "agent-002", "agentName": "Reviewer"}
      """
    And I call "read_thoughts"
    Then thought 1 is attributed to "agent-001" "Planner Agent"
    And thought 2 is attributed to "agent-002" "Reviewer"
    When I export the session
    Then node 2 of the export is attributed to "agent-002" "Reviewer"
