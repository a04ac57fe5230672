package steps

import "github.com/cucumber/godog"

// Register binds every step of the feature language to w, the state of one
// scenario.
func Register(sc *godog.ScenarioContext, w *World) {
	registerExactness(sc, w)
	registerNotebook(sc, w)
	registerKnowledge(sc, w)
	registerSurface(sc, w)
	registerSessionOps(sc, w)

	// MCP sessions and stages.
	sc.Given(`^a fresh MCP session$`, w.freshSession)
	sc.Given(`^a fresh MCP session that answers sampling requests$`, w.samplingSession)
	sc.Given(`^a reasoning session at stage (entry|init_complete|cipher_loaded)$`, w.reasoningSessionAt)
	sc.Given(`^a reasoning session at stage cipher_loaded whose client answers sampling requests$`, w.samplingReady)
	sc.Step(`^MCP session "([^"]*)" opens$`, w.openNamed)
	sc.Step(`^session "([^"]*)" reaches stage (init_complete|cipher_loaded)$`, w.namedReachesStage)

	// Calls.
	sc.Step(`^I call "([^"]*)"$`, w.callPlain)
	sc.Step(`^I call "([^"]*)" with:$`, w.callOp)
	sc.Step(`^session "([^"]*)" calls "([^"]*)"$`, w.namedCalls)
	sc.Step(`^session "([^"]*)" calls "([^"]*)" with:$`, w.namedCallsWith)
	sc.Step(`^the call succeeds$`, w.callSucceeds)
	sc.Step(`^the call fails$`, w.callFails)
	sc.Step(`^the call fails with a stage error: current stage "([^"]*)", required stage "([^"]*)"$`, w.stageError)
	// Errors are judged by the rule (error or not, which field, which
	// value), never by their wording: another server's messages differ.
	sc.Step(`^the suggestion names ((?:"[^"]*"(?:, | and )?)+)$`, w.suggestionNames)
	sc.Step(`^the call fails naming ((?:"[^"]*"(?:, | and )?)+)$`, w.failsNaming)
	sc.Step(`^the call fails naming ((?:"[^"]*"(?:, | and )?)+) with status "([^"]*)"$`, w.failsNamingStatus)
	sc.Step(`^the answer lists required "([^"]*)" and received "([^"]*)"$`, w.listsRequiredReceived)
	sc.Step(`^the answer text starts with "([^"]*)"$`, w.textStartsWith)
	sc.Step(`^the answer text contains "([^"]*)"$`, w.textContains)
	sc.Step(`^the answer matches:$`, w.answerMatches)
	sc.Step(`^"([^"]*)" differs from "([^"]*)"$`, w.differs)
	sc.Step(`^the answer has "([^"]*)" equal to (.+)$`, w.answerHasEqual)
	sc.Step(`^the answer's "([^"]*)" is "([^"]*)"$`, w.answerPathIs)
	sc.Step(`^the answer's "([^"]*)" has (\d+) items$`, w.answerPathItems)
	sc.Step(`^the answer's "([^"]*)" names a file$`, w.pathNamesFile)
	sc.Step(`^I remember the reasoning session as "([^"]*)"$`, w.remember)

	// Recording thoughts.
	sc.Step(`^I record (\d+) thoughts?$`, w.recordN)
	sc.Step(`^I record thoughts (\d+) to (\d+) of (\d+)$`, w.recordRange)
	sc.Step(`^I record thoughts (\d+) down to (\d+)$`, w.recordDown)
	sc.Step(`^I record thoughts (\d+) down to (\d+) and close$`, w.recordDownClose)
	sc.Step(`^I record thoughts ([\d, ]+) and (\d+) of (\d+)$`, w.recordList)
	sc.Step(`^I record the thought "([^"]*)" with:$`, w.recordWith)
	sc.Step(`^I record a closing thought$`, w.recordClosing)
	sc.Step(`^I branch "([^"]*)" from thought (\d+) with thought (\d+)$`, w.branch)
	sc.Step(`^I revise thought (\d+) with thought (\d+)$`, w.revise)
	sc.Step(`^I record a thought of (\d+) MiB$`, w.bigThought)
	sc.Step(`^I record a thought asking for a critique$`, w.critiqueThought)
	sc.Step(`^the thought numbers were ([\d, ]+)$`, w.numbersWere)
	sc.Step(`^the answer has thoughtNumber (\d+), totalThoughts (\d+) and nextThoughtNeeded (true|false)$`, w.hasTriple)
	sc.Step(`^the answer has thoughtNumber (\d+)$`, w.hasNumber)
	sc.Step(`^the answer has a sessionId$`, w.hasSessionID)
	sc.Step(`^the answer carries the patterns cookbook$`, w.carriesCookbook)
	sc.Step(`^the answer carries no resources$`, w.carriesNoResources)
	sc.Step(`^the answer carries the resource "([^"]*)"$`, w.carriesResource)
	sc.Step(`^the cookbook names the six patterns$`, w.cookbookSixPatterns)
	sc.Step(`^the session was closed and exported$`, w.closedAndExported)
	sc.Step(`^the verbose answer lists branches "([^"]*)"$`, w.verboseBranches)
	sc.Step(`^the answer carries a critique from the client's model$`, w.hasCritique)
	sc.Step(`^the answer carries no critique$`, w.noCritique)
	sc.Step(`^the call took less than (\d+) seconds?$`, w.tookLessThan)

	// Reads and structure.
	sc.Step(`^I get thoughts ([\d, ]+)$`, w.getThoughts)
	sc.Step(`^I get (\d+) thoughts$`, w.getCount)
	sc.Step(`^the read query is "([^"]*)"$`, w.queryIs)
	sc.Step(`^every thought read carries the run's nonce$`, w.readCarriesNonce)
	sc.Step(`^every thought read is on branch "([^"]*)"$`, w.readOnBranch)
	sc.Step(`^the read session is not "([^"]*)"$`, w.readSessionNot)
	sc.Step(`^thought (\d+) is a revision of thought (\d+)$`, w.isRevisionOf)
	sc.Step(`^thought (\d+) is attributed to "([^"]*)" "([^"]*)"$`, w.attributed)
	sc.Step(`^thought (\d+) reads "([^"]*)"$`, w.thoughtReads)
	sc.Step(`^the structure's main chain has length (\d+), head (\d+) and tail (\d+)$`, w.mainChainIs)
	sc.Step(`^the structure lists the revisions (.+)$`, w.revisionsAre)
	sc.Step(`^the structure reports branch "([^"]*)" forking from (\d+) with range (\d+) to (\d+) and length (\d+)$`, w.branchShape)
	sc.Step(`^the answer contains no thought text$`, w.noThoughtText)

	// Exports.
	sc.Step(`^I export the session$`, w.exportSession)
	sc.Step(`^I read the export$`, w.readTheExport)
	sc.Step(`^the export links the nodes:$`, w.linksAre)
	sc.Step(`^the export has (\d+) nodes$`, w.exportNodeCount)
	sc.Step(`^the export has version "([^"]*)", a session object and (\d+) nodes$`, w.exportShape)
	sc.Step(`^the export's session has title "([^"]*)" and tags "([^"]*)"$`, w.exportSessionTitleTags)
	sc.Step(`^node (\S+) comes after node (\S+) in the export$`, w.nodeAfter)
	sc.Step(`^the export file is named after the session and a timestamp$`, w.exportFileNamed)
	sc.Step(`^the export path is in the server's export directory$`, w.exportInDir)
	sc.Step(`^every node id and link in the export has the documented form$`, w.idsDocumented)
	sc.Step(`^every node of the export carries the run's nonce$`, w.exportNonce)
	sc.Step(`^node (\S+) of the export is attributed to "([^"]*)" "([^"]*)"$`, w.exportAttributed)
	sc.Step(`^node (\S+) of the export has revision depth (\d+) in the chain of thought (\S+)$`, w.revisionDepth)

	// Golden sequences.
	sc.Step(`^I play the golden sequence "([^"]*)"$`, w.playGolden)
	sc.Step(`^every answer matches the golden sequence, apart from the reference server's documented fixes$`, w.goldenCore)
	sc.Step(`^every answer matches the golden sequence, including the reference server's fixes$`, w.goldenAll)

	// Transparency of the sidecar.
	sc.Step(`^I play the golden sequence "([^"]*)" directly and through the sidecar$`, w.playBothWays)
	sc.Step(`^both plays gave the same answers$`, w.samePlays)
	sc.Step(`^I send the protocol-error requests directly and through the sidecar$`, w.protocolErrorsBothWays)
	sc.Step(`^both got the same HTTP statuses and bodies$`, w.sameHTTP)

	// Durability: restarts, kills, damage and a second process.
	sc.Step(`^the server restarts$`, w.serverRestarts)
	sc.Step(`^the server is killed with SIGKILL and started again$`, w.serverKilled)
	sc.Step(`^session "([^"]*)" gets (an unreadable journal line|a missing thought file|a stray temporary file) while the server is stopped$`, w.damageWhileStopped)
	sc.Step(`^the call reports the damage to session "([^"]*)"$`, w.reportsDamage)
	sc.Step(`^the stray temporary file is gone$`, w.strayGone)
	sc.Step(`^I keep the export as "([^"]*)"$`, w.keepExport)
	sc.Step(`^the export equals "([^"]*)" apart from exportedAt$`, w.exportEquals)
	sc.Step(`^every acknowledged thought reads back with its text$`, w.readBack)
	sc.Step(`^I record (\d+) thoughts of (\d+) KiB each and the server is killed with SIGKILL while it writes them$`, w.largeThoughtsThenKill)
	sc.Step(`^every file the session's manifest listed when the server was killed existed and parsed whole$`, w.killedFilesWhole)
	sc.Step(`^a second server process on the same data$`, w.startSibling)
	sc.Step(`^MCP session "([^"]*)" opens on the second server process$`, w.openOnSibling)
	sc.Step(`^after the second process stops and the server restarts, every acknowledged thought reads back with its text$`, w.siblingStopsThenReadBack)

	// HTTP and protocol.
	sc.Step(`^I GET "([^"]*)"$`, w.get)
	sc.Step(`^I POST to the MCP endpoint without a session id:$`, w.postNoSession)
	sc.Step(`^I POST to the MCP endpoint in my session:$`, w.postInSession)
	sc.Step(`^I POST to the MCP endpoint with the session id "([^"]*)":$`, w.postWithSessionID)
	sc.Step(`^I DELETE my session$`, w.deleteMySession)
	sc.Step(`^I POST (\d+) MiB to the MCP endpoint in my session$`, w.postMiB)
	sc.Step(`^I POST an initialize to the MCP endpoint with the header "([^"]*)" set to "([^"]*)"$`, w.postInitWithHeader)
	sc.Step(`^the HTTP status is (\d+)$`, w.httpStatus)
	sc.Step(`^the HTTP body has "([^"]*)" equal to "([^"]*)"$`, w.httpBodyHas)
	sc.Step(`^the HTTP body is a JSON-RPC error$`, w.httpBodyRPCError)
	sc.Step(`^I list the tools$`, w.listTools)
	sc.Step(`^the tools are "([^"]*)"$`, w.toolsAre)
	sc.Step(`^the "([^"]*)" operations are "([^"]*)"$`, w.toolOperations)
	sc.Step(`^I read the resource "([^"]*)"$`, w.readResource)
	sc.Step(`^the resource text starts with "([^"]*)"$`, w.resourceStartsWith)
}
