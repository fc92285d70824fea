/// The checks an output passes before a job's work starts, in one place for every method: that the session may
/// write there (`--allow-dir`, MCP roots), that its folder exists, and that what the path holds, if anything, may be
/// replaced (``FileAccess/checkWritable(_:overwrite:)``). Whether a path's extension names the format written is
/// the params' own check (``OutputSpec``'s decoder, ``ImageAnimatedStickerMethod/validate(_:path:)``).
///
/// An output that could never be written is so refused at once, not after seconds of decoding and cutting; the
/// write checks again (``FileAccess/writeAtomically(_:to:overwrite:)``), since a folder may go meanwhile.
enum OutputCheck {
    /// A file output; an inline one has nothing to check.
    static func check(_ spec: OutputSpec, access: FileAccess) throws {
        guard !spec.inline, let path = spec.path else { return }
        try access.checkWritable(path, overwrite: spec.overwrite)
    }

    /// An animation's file output; an inline one has nothing to check.
    static func check(_ spec: AnimatedOutputSpec, access: FileAccess) throws {
        guard !spec.inline, let path = spec.path else { return }
        try access.checkWritable(path, overwrite: spec.overwrite)
    }

    /// An output folder, created (with its parents) when it may be.
    static func prepare(_ spec: OutputDirectorySpec, access: FileAccess) throws {
        try access.prepareDirectory(spec.dir, create: spec.createsFolder)
    }
}
