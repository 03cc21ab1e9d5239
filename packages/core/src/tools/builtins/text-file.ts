import type { Stats } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import { formatCount } from "./output-limit.js";
import type { WorkspacePath } from "./workspace.js";

/** How many leading bytes decide whether a file is binary (git looks at the first 8000 too). */
const BINARY_SAMPLE_BYTES = 8_000;

/** The largest file edit_file and grep load whole; bigger files are logs or data, not source. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** A NUL byte is how git, grep and ripgrep tell binary from text; UTF-16 text counts as binary too. */
export function looksBinary(sample: Uint8Array): boolean {
	return sample.subarray(0, BINARY_SAMPLE_BYTES).includes(0);
}

/**
 * Stats an existing path. Throws an error for the model when nothing is there, so every tool says
 * "does not exist" the same way.
 */
export async function statExisting(target: WorkspacePath): Promise<Stats> {
	try {
		return await stat(target.real);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") {
			throw new Error(`Path "${target.requested}" does not exist in the workspace.`);
		}
		throw error;
	}
}

/** Stats a path that must be a regular file: a directory, a FIFO or a device would hang or mislead a reader. */
export async function statRegularFile(target: WorkspacePath): Promise<Stats> {
	const stats = await statExisting(target);
	if (stats.isDirectory()) {
		throw new Error(`Path "${target.requested}" is a directory, not a file; use list_dir to see what it holds.`);
	}
	if (!stats.isFile()) throw new Error(`Path "${target.requested}" is not a regular file.`);
	return stats;
}

/** Reads the first bytes of an open file, to decide whether it is text. */
export async function readSample(handle: FileHandle): Promise<Uint8Array> {
	const buffer = new Uint8Array(BINARY_SAMPLE_BYTES);
	const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
	return buffer.subarray(0, bytesRead);
}

/** Replaces an open file's content with `text`. */
export async function overwrite(handle: FileHandle, text: string): Promise<void> {
	const bytes = Buffer.from(text, "utf8");
	await handle.truncate(0);
	let written = 0;
	while (written < bytes.length) {
		const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
		written += bytesWritten;
	}
}

/** Throws the model-facing refusal for a binary file. */
export function binaryFileError(requested: string): Error {
	return new Error(`File "${requested}" looks binary (it contains NUL bytes); only text files can be read or edited.`);
}

/**
 * Reads a whole open text file as UTF-8 for a tool that must see all of it (edit_file).
 * Throws for the model: missing, not a file, binary, or over MAX_TEXT_FILE_BYTES.
 */
export async function readWholeTextFile(target: WorkspacePath, handle: FileHandle): Promise<string> {
	// openChecked refused anything but a regular file.
	const stats = await handle.stat();
	if (stats.size > MAX_TEXT_FILE_BYTES) {
		throw new Error(
			`File "${target.requested}" is ${formatCount(stats.size)} bytes, over the ${formatCount(MAX_TEXT_FILE_BYTES)}-byte limit for this tool.`,
		);
	}
	const bytes = await handle.readFile();
	if (looksBinary(bytes)) throw binaryFileError(target.requested);
	return bytes.toString("utf8");
}
