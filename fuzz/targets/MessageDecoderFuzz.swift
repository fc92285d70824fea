// libFuzzer target: the worker's input path, bytes -> InputFramer (NDJSON or Content-Length, detected
// or forced) -> JSONParser -> IncomingMessage.
// Compiled into the same module as the JSONRPCTransport sources it tests (see fuzz/run.sh), so it needs no
// `import JSONRPCTransport`. Besides "does not crash", it checks three oracles that the worker relies on:
//   1. framing (and its detection) does not depend on how the stream is split into reads;
//   2. every parsed value survives serialize -> parse unchanged (the writer emits what the parser reads);
//   3. validation is total: every parsed element becomes exactly one IncomingMessage case.

/// Small line cap so the discard path is reached by short inputs too.
private let fuzzLineCap = 256

private func frame(_ data: UnsafeRawBufferPointer, chunk: Int, framing: MessageFraming?) -> [FrameEvent] {
    var framer = InputFramer(framing: framing, maxMessageBytes: fuzzLineCap)
    var events: [FrameEvent] = []
    var start = 0
    while start < data.count {
        let end = min(data.count, start + chunk)
        framer.feed(UnsafeRawBufferPointer(rebasing: data[start..<end])) { events.append($0) }
        start = end
    }
    framer.finish { events.append($0) }
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func messageDecoderFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let data = UnsafeRawBufferPointer(start: start, count: count)
    // The first byte picks a read size and the framing (detected, NDJSON or Content-Length); the
    // rest is the stream.
    let chunk = Int(data[0] % 17) + 1
    let framing: MessageFraming? = [nil, .ndjson, .contentLength][Int(data[0] / 17) % 3]
    let stream = UnsafeRawBufferPointer(rebasing: data[1...])
    let whole = frame(stream, chunk: max(stream.count, 1), framing: framing)
    let pieces = frame(stream, chunk: chunk, framing: framing)
    precondition(whole == pieces, "framing depends on read boundaries (chunk \(chunk), \(String(describing: framing)))")

    for event in whole {
        guard case .message(let bytes) = event else { continue }
        precondition(bytes.count <= fuzzLineCap, "framer emitted a message over the cap")
        if framing == .ndjson {
            precondition(!bytes.isEmpty && !bytes.contains(0x0A), "framer emitted an empty line or one containing a newline")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { continue }
        let again: JSONValue
        do { again = try JSONParser.parse(value.serialized) } catch {
            preconditionFailure("serialized value does not parse: \(error)")
        }
        precondition(again == value, "serialize/parse round trip changed the value")
        let members: [JSONValue]
        if case .array(let a) = value { members = a } else { members = [value] }
        for member in members {
            switch IncomingMessage(member) {
            case .request(_, let method, let params), .notification(let method, let params):
                precondition(member["method"] == .string(method))
                if let params {
                    switch params {
                    case .object, .array: break
                    default: preconditionFailure("params of a non-structured type accepted")
                    }
                }
            case .response(let id, let result, let error):
                // Only a message without "method" that carries "result" or "error" is a response.
                precondition(member["method"] == nil && (result != nil || error != nil))
                precondition(RequestID(json: member["id"] ?? .null) == id)
            case .invalid(let id, let error):
                precondition(error.code == .invalidRequest)
                _ = id
            }
        }
    }
    return 0
}
