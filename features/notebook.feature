# The notebook operation: literate JavaScript/TypeScript notebooks, their
# .src.md export and load, and running their cells. D13 is the reference
# server's rule for running cell code: a scrubbed environment, a process
# group of its own killed at the time limit, a failed run is an error, and
# a filename with a path in it is refused without leaving a cell behind.
Feature: Notebooks

  Background:
    Given a reasoning session at stage cipher_loaded

  @core @notebook
  Scenario: a notebook exported and loaded again exports the same text
    Given I create a javascript notebook
    And I add a markdown cell:
      """
      Notes for {{nonce}}
      """
    And I add the code cell "hello.js":
      """
      console.log('hello {{nonce}}')
      """
    When I export the notebook as "first"
    And I load the export "first"
    Then the notebook is not the one exported as "first"
    And the notebook has 4 cells
    When I export the notebook as "second"
    Then the exports "first" and "second" are the same text

  @core @notebook
  Scenario: a JavaScript cell runs and keeps its output
    Given I create a javascript notebook
    And I add the code cell "sum.js":
      """
      const n = [1, 2, 3].reduce((a, b) => a + b, 0)
      console.log('{{nonce}} ' + n)
      """
    When I run the cell "sum.js"
    Then the run succeeded with the output "{{nonce}} 6"
    And the cell "sum.js" has status "completed"

  @core @notebook
  Scenario: a TypeScript cell runs
    Given I create a typescript notebook
    And I add the code cell "typed.ts":
      """
      interface Pair { left: number; right: number }
      const p: Pair = { left: 40, right: 2 }
      console.log('{{nonce}} ' + (p.left + p.right))
      """
    When I run the cell "typed.ts"
    Then the run succeeded with the output "{{nonce}} 42"

  @intent @notebook
  Scenario: a run whose program fails is an error
    Given I create a javascript notebook
    And I add the code cell "fail.js":
      """
      console.log('before'); throw new Error('boom {{nonce}}')
      """
    When I run the cell "fail.js"
    Then the run failed
    And the cell "fail.js" has status "failed"

  @intent @notebook
  Scenario: a run past its time limit is killed with its whole process group
    Given I create a javascript notebook
    And I add the code cell "spawn.js":
      """
      import { spawn } from 'node:child_process'
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' })
      console.log('child ' + child.pid)
      setTimeout(() => {}, 120000)
      """
    When I run the cell "spawn.js" with a time limit of 2000 ms
    Then the child process the cell started is gone
    And the cell "spawn.js" has status "failed"

  @intent @notebook @server-env
  Scenario: cell code does not see the server's environment
    Given I create a javascript notebook
    And I add the code cell "env.js":
      """
      console.log(JSON.stringify(process.env))
      """
    When I run the cell "env.js"
    Then the output shows none of the server's secrets

  @intent @notebook
  Scenario Outline: a code cell filename with a path in it is refused and leaves no cell behind
    Given I create a javascript notebook
    When I call "notebook" with:
      """
      {"operation": "add_cell", "notebookId": "{{notebook}}", "cellType": "code", "filename": "<filename>", "content": "console.log(1)"}
      """
    Then the call fails naming "filename"
    And the notebook has 2 cells
    And the notebook has no cell with the filename "<name>"

    Examples:
      | filename        | name          |
      | ../evil.js      | ../evil.js    |
      | sub/evil.js     | sub/evil.js   |
      | sub\\\\evil.js  | sub\\evil.js  |
