import Foundation

/// Output of the one-shot modes (`call`, `demo`), written straight to fd 1 line by line.
///
/// `print` is block-buffered when stdout is a pipe, so a script reading `call`'s streamed events
/// would see them only when the buffer fills; each line here is written the moment it exists.
enum Terminal {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
