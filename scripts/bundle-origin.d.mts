/** The source file behind a position of the bundled CLI (see bundle-origin.mjs). */
export declare function originOf(url: string, lineNumber: number, columnNumber: number): string | undefined;
