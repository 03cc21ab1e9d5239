/**
 * The id a call gets in the Session: the model's own, unless the Session already used it (some
 * servers repeat ids across turns), then `<id>_2`, `<id>_3`, … Ids stay unique Session-wide, so a
 * call id is executed at most once and pairing can tell calls apart. The id is taken here.
 */
export function freshCallId(modelCallId: string, taken: Set<string>): string {
	let callId = modelCallId;
	for (let n = 2; taken.has(callId); n++) callId = `${modelCallId}_${n}`;
	taken.add(callId);
	return callId;
}
