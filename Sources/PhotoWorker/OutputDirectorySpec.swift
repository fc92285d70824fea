/// An output folder: `{"dir": "...", "create": true}`.
public struct OutputDirectorySpec: Sendable, Decodable {
    public var dir: String
    /// Create the folder (and parents) if missing; default true.
    public var create: Bool?
    /// Replace existing files that are not images the worker reads (see ``OutputWriter``); default false.
    public var overwrite: Bool?
}
