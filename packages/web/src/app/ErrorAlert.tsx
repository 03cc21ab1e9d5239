/** What went wrong with the form or action it stands under, announced to screen readers; nothing when all is well. */
export function ErrorAlert({ error }: { error: string | undefined }) {
	if (error === undefined) return null;
	return (
		<p className="error-text" role="alert">
			{error}
		</p>
	);
}
