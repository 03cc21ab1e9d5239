import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api/endpoints.js";
import { errorText } from "../api/http.js";
import { hunks } from "./unified-diff.js";

/** "Files changed": every file the agent changed in the Session, with its diff, read when opened. */
export function FilesChanged({ sessionId, lastSeq }: { sessionId: string; lastSeq: number }) {
	const [open, setOpen] = useState(false);
	const files = useQuery({
		queryKey: ["files-changed", sessionId, lastSeq],
		queryFn: () => api.filesChanged(sessionId),
		enabled: open,
	});
	return (
		<details className="files-changed" onToggle={(event) => setOpen(event.currentTarget.open)}>
			<summary>Files changed{files.data === undefined ? "" : ` (${files.data.length})`}</summary>
			{files.isError ? <p className="error-text">{errorText(files.error)}</p> : null}
			{files.data?.length === 0 ? <p className="muted">The agent has changed no file in this Session.</p> : null}
			{files.data?.map((file) => (
				<section key={file.path} className="file-change" aria-label={file.path}>
					<h3>
						<span className={`file-status ${file.status}`}>{file.status}</span> {file.path}
					</h3>
					<pre className="diff">{hunks(file.diff)}</pre>
				</section>
			))}
		</details>
	);
}
