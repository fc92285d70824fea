import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Wrong types in every parameter of every method: generated from `initialize`'s method list and a
/// table of each method's parameters. Every mistyped value is -32602 naming its parameter path.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct HostileParamsTests {
    enum Kind { case int, number, bool, string, object, array, requestID }

    struct Param {
        var path: String
        var kind: Kind
        var required: Bool
    }

    struct Signature {
        /// Params that decode (the call then fails for another reason, or succeeds harmlessly).
        var base: [String: JSONValue]
        var params: [Param]
        /// Calling it with valid params has effects the test must not trigger.
        var callBase = true
    }

    static func p(_ path: String, _ kind: Kind, required: Bool = false) -> Param { Param(path: path, kind: kind, required: required) }

    static let missing: JSONValue = ["path": "/nonexistent/photoworker-hostile.png"]

    /// Every method the worker lists must be here: a new method needs its row.
    static func signatures(outputDir: String) -> [String: Signature] {
        let source = Self.missing
        let sourceParams = [p("source", .object, required: true), p("source.path", .string), ]
        let output = [p("output", .object, required: true), p("output.inline", .bool), p("output.quality", .int),
                      p("output.format", .string), p("output.progressive", .bool), p("output.compressionLevel", .int)]
        let outline = [p("outline", .object), p("outline.width", .int), p("outline.color", .string)]
        return [
            "ping": Signature(base: [:], params: []),
            "jobs.list": Signature(base: [:], params: []),
            "worker.stats": Signature(base: [:], params: []),
            "cache.stats": Signature(base: [:], params: []),
            "cache.clear": Signature(base: [:], params: []),
            "shutdown": Signature(base: [:], params: [], callBase: false),
            "rpc.discover": Signature(base: [:], params: []),
            "tools/list": Signature(base: [:], params: [p("cursor", .string)]),
            "tools/call": Signature(base: ["name": "cache_stats"], params: [
                p("name", .string, required: true), p("task", .object), p("task.ttl", .int), p("_meta", .object)]),
            // MCP 2026-07-28 and tasks. Their valid calls would open a modern session or name no task: not sent.
            "server/discover": Signature(base: [:], params: [p("_meta", .object, required: true)], callBase: false),
            "tasks/get": Signature(base: ["taskId": "nope"], params: [p("taskId", .string, required: true), p("_meta", .object)], callBase: false),
            "tasks/result": Signature(base: ["taskId": "nope"], params: [p("taskId", .string, required: true), p("_meta", .object)], callBase: false),
            "tasks/cancel": Signature(base: ["taskId": "nope"], params: [p("taskId", .string, required: true), p("_meta", .object)], callBase: false),
            "tasks/update": Signature(base: ["taskId": "nope"], params: [p("taskId", .string, required: true), p("_meta", .object)]),
            "tasks/list": Signature(base: [:], params: [p("cursor", .string), p("_meta", .object)]),
            "subscriptions/listen": Signature(base: [:], params: [p("_meta", .object)]),
            "initialize": Signature(base: [:], params: [p("protocolVersion", .string)]),
            "jobs.cancel": Signature(base: ["id": 424242], params: [p("id", .requestID, required: true)]),
            "diagnostics.sleep": Signature(base: ["ms": 0], params: [p("ms", .int, required: true)]),
            "diagnostics.spin": Signature(base: ["ms": 0], params: [p("ms", .int, required: true)]),
            "diagnostics.hold": Signature(base: ["ms": 0, "bytes": 0],
                                          params: [p("ms", .int, required: true), p("bytes", .int, required: true)]),
            "diagnostics.fanout": Signature(base: ["children": 0], params: [p("children", .int, required: true), p("ms", .int)]),
            "image.info": Signature(base: ["source": source], params: sourceParams),
            "image.convert": Signature(
                base: ["source": source, "output": ["inline": true]],
                params: sourceParams + output + [p("allowTruncated", .bool)]),
            "image.thumbnail": Signature(
                base: ["source": source, "size": 64, "output": ["inline": true]],
                params: sourceParams + output + [p("size", .int), p("width", .int), p("height", .int), p("fit", .string)]),
            "image.scale": Signature(
                base: ["source": source, "factor": .number("0.5"), "output": ["inline": true]],
                params: sourceParams + output + [p("factor", .number, required: true)]),
            "image.palette": Signature(base: ["source": source], params: sourceParams + [p("count", .int)]),
            "image.effect": Signature(
                base: ["source": source, "effects": [["grayscale": true]], "output": ["inline": true]],
                params: sourceParams + output + [p("effects", .array, required: true)]),
            "image.sticker": Signature(
                base: ["source": source, "output": ["inline": true]],
                params: sourceParams + output + outline + [p("maskOutput", .object), p("subject", .object),
                                                           p("decontaminate", .bool)]),
            "image.subjects": Signature(
                base: ["source": source],
                params: sourceParams + outline + [p("max", .int), p("segmenter", .string), p("stickers", .object),
                                                  p("decontaminate", .bool)]),
            "image.animatedSticker": Signature(
                base: ["source": source, "output": ["inline": true, "format": "webm"]],
                params: sourceParams + outline + [
                    p("output", .object, required: true), p("output.inline", .bool), p("output.quality", .int),
                    p("output.format", .string), p("output.overwrite", .bool), p("maskOutput", .object),
                    p("start", .number), p("duration", .number), p("fps", .number), p("size", .int), p("target", .string),
                    p("keyFrameInterval", .number), p("subject", .object),
                ]),
            "photo.process": Signature(
                base: ["source": source, "output": ["dir": .string(outputDir)]],
                params: sourceParams + outline + [p("output", .object, required: true), p("output.dir", .string, required: true),
                                                  p("output.create", .bool), p("count", .int), p("name", .string),
                                                  p("subject", .object), p("decontaminate", .bool)]),
            "photos.process": Signature(
                base: ["sources": [source], "output": ["dir": .string(outputDir)]],
                params: outline + [p("sources", .array, required: true), p("output", .object, required: true),
                                   p("output.dir", .string, required: true), p("count", .int), p("maxConcurrency", .int),
                                   p("animated", .object), p("animated.size", .int), p("animated.format", .string)]),
            "pack.export": Signature(
                base: ["stickers": [source], "output": ["inline": true]],
                params: output + outline + [p("stickers", .array), p("sources", .array), p("columns", .int), p("cellSize", .int),
                                            p("padding", .int), p("background", .string), p("filesDir", .string),
                                            p("animated", .object)]),
        ]
    }

    static func wrongValues(for kind: Kind) -> [JSONValue] {
        switch kind {
        case .int: ["7", true, [7], ["v": 7], .number("7.5")]
        case .number: ["0.5", true, [.number("0.5")], [:]]
        case .bool: ["true", 1, [true], [:]]
        case .string: [7, true, ["x"], ["s": "x"]]
        case .object: ["x", 7, true, [[:]]]
        case .array: ["x", 7, true, ["0": [:]]]
        case .requestID: [true, [1], ["id": 1]]
        }
    }

    /// `value` with the member at the dotted `path` replaced (or added).
    static func replacing(_ value: JSONValue, at path: ArraySlice<Substring>, with new: JSONValue) -> JSONValue {
        guard let key = path.first else { return new }
        guard case .object(var o) = value else { return value }
        o[String(key)] = replacing(o[String(key)] ?? .object([:]), at: path.dropFirst(), with: new)
        return .object(o)
    }

    @Test func everyParameterOfEveryMethodRejectsWrongTypes() async throws {
        let folder = try TempFolder("params")
        defer { folder.remove() }
        let table = Self.signatures(outputDir: folder.path + "/out")
        let w = try WorkerProcess()
        let initialize = try await w.call(1, "initialize")
        guard case .array(let listed) = initialize["result"]?["methods"] else {
            Issue.record("initialize lists no methods: \(initialize)")
            return
        }
        let names = listed.compactMap { $0["name"]?.stringValue }
        #expect(names.count >= 20)

        // Each request and what it must get: nil = anything but -32602 (the base decodes).
        var expected: [Int: (method: String, path: String?, what: String)] = [:]
        var id = 10
        func send(_ method: String, _ params: JSONValue?, path: String?, what: String) {
            id += 1
            expected[id] = (method, path, what)
            w.request(id, method, params)
        }
        for name in names {
            guard let signature = table[name] else {
                Issue.record("no parameter table for \(name): add it to HostileParamsTests.signatures")
                continue
            }
            let base = JSONValue.object(signature.base)
            if signature.callBase { send(name, base, path: nil, what: "valid base params") }
            for param in signature.params {
                let keys = param.path.split(separator: ".")[...]
                var values = Self.wrongValues(for: param.kind)
                if param.required { values.append(.null) }
                for value in values {
                    send(name, Self.replacing(base, at: keys, with: value), path: param.path, what: "\(param.path) = \(value.jsonString)")
                }
            }
            if !signature.params.isEmpty {
                send(name, [1, 2], path: "params", what: "params by position")
            }
        }
        // params that are neither object nor array are not valid requests at all.
        id += 1
        w.send(raw: #"{"jsonrpc":"2.0","id":\#(id),"method":"ping","params":"x"}"#)
        let refusedID = id

        var replies: [Int: JSONValue] = [:]
        while replies.count < expected.count + 1 {
            let m = try #require(try await w.next())
            guard m["method"] == nil, let i = m["id"]?.intValue else { continue }
            replies[i] = m
        }
        #expect(replies[refusedID]?.errorCode == -32600)
        for (i, e) in expected.sorted(by: { $0.key < $1.key }) {
            let reply = try #require(replies[i])
            guard let path = e.path else {
                #expect(reply.errorCode != -32602, "\(e.method) \(e.what): \(reply)")
                continue
            }
            #expect(reply.errorCode == -32602, "\(e.method) \(e.what): \(reply)")
            let named = reply["error"]?["data"]?["path"]?.stringValue ?? ""
            #expect(named == path || named.hasPrefix(path + ".") || named.hasPrefix(path + "["),
                    "\(e.method) \(e.what): error names \(named)")
        }
        try await w.expectServing()
    }
}
