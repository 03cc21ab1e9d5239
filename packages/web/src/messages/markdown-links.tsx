import type { ComponentProps } from "react";
import type { ExtraProps } from "streamdown";

/**
 * Model and tool output never makes the browser contact another origin by itself (README,
 * "Security"): a prompt injection could put a secret in an image's URL. An image from another
 * origin is a link that names its host, opened only by a person's click, in a new tab; `data:`,
 * `blob:` and this origin's images show. The CSP refuses the rest even if this slips.
 */
export function isLocalImage(src: string): boolean {
	if (/^(data:image\/|blob:)/i.test(src)) return true;
	try {
		return new URL(src, window.location.href).origin === window.location.origin;
	} catch {
		return false;
	}
}

/** The host a URL names, for a person to judge (`evil.example:8080`), or the text itself. */
export function hostOf(url: string): string {
	try {
		return new URL(url, window.location.href).host || url;
	} catch {
		return url;
	}
}

const NEW_TAB = { target: "_blank", rel: "noopener noreferrer" } as const;

export function SafeImage({ src, alt, title }: ComponentProps<"img"> & ExtraProps) {
	if (typeof src !== "string" || src === "") return null;
	if (isLocalImage(src)) return <img src={src} alt={alt ?? ""} title={title} />;
	return (
		<a className="remote-image" href={src} title={src} {...NEW_TAB}>
			Image from {hostOf(src)}
			{alt === undefined || alt === "" ? null : `: ${alt}`} (not loaded; opens in a new tab)
		</a>
	);
}

/** The text of a link's children when it is plain text (the URL itself, often). */
function plainText(children: unknown): string | undefined {
	if (typeof children === "string") return children;
	if (Array.isArray(children) && children.every((c) => typeof c === "string")) return children.join("");
	return undefined;
}

/**
 * A link shows where it really goes when its text says something else, and opens in a new tab
 * that neither learns of this page nor receives a Referer. A footnote's `#…` stays in the page.
 */
export function SafeLink({ href, children, id, className }: ComponentProps<"a"> & ExtraProps) {
	if (typeof href !== "string" || href === "" || href === "streamdown:incomplete-link") return <span>{children}</span>;
	if (href.startsWith("#")) {
		return (
			<a href={href} id={id} className={className}>
				{children}
			</a>
		);
	}
	const text = plainText(children);
	return (
		<a href={href} title={href} className={className} {...NEW_TAB}>
			{children}
			{text === href ? null : <span className="link-target"> ({href})</span>}
		</a>
	);
}

/**
 * `<source srcset>` inside a `<picture>` would load an image past `SafeImage`: it is dropped; the
 * picture's `<img>` stays, as `SafeImage`.
 */
export function NoSource() {
	return null;
}
