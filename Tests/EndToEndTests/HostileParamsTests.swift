import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Hostile values in every parameter of every method, read from the worker's own contract (`rpc.discover`): each
/// parameter's type, whether it is required, and its bounds. Every mistyped value, every number just outside its
/// bounds and every missing required value is -32602 naming its parameter path. A new parameter is covered by
/// stating it in its method's contract; only a new method with required params needs a row in ``validCalls``.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct HostileParamsTests {
    enum Kind { case int, number, bool, string, object, array, requestID }

    /// A parameter as the contract states it.
    struct Param {
        var path: String
        var kind: Kind
        var required: Bool
        /// Values just outside the stated bounds (numbers only).
        var outOfBounds: [JSONValue]
    }

    /// How to call a method validly: params that decode (the call then fails for another reason, or succeeds
    /// harmlessly), and whether that call may be sent at all. Not the params' types or bounds (the contract states
    /// those): only what the contract cannot say, a harmless value of each required param.
    struct ValidCall {
        var base: [String: JSONValue]
        /// Calling it with valid params has effects the test must not trigger.
        var callBase = true
        /// Params whose values are not checked here, with why in the row's comment.
        var untested: Set<String> = []
        /// Required params whose absence is refused otherwise than -32602 (for want of something checked first).
        var absenceRefusedOtherwise: Set<String> = []
    }

    static let missing: JSONValue = ["path": "/nonexistent/photoworker-hostile.png"]

    /// A valid call of each method whose valid call is not `{}` (a method with required params needs its row).
    static func validCalls(folder: String) -> [String: ValidCall] {
        let source = Self.missing
        let outputDir = folder + "/out"
        return [
            "shutdown": ValidCall(base: [:], callBase: false),
            // LSP and MCP clients send their own shapes: taken as they come.
            "initialize": ValidCall(base: [:], untested: ["clientInfo", "capabilities"]),
            // The tool's own params: the tool checks them (-32602 at `params` when they are not an object).
            "tools/call": ValidCall(base: ["name": "cache_stats"], untested: ["arguments"]),
            // MCP 2026-07-28 and tasks. Their valid calls would open a modern session or name no task: not sent.
            "server/discover": ValidCall(base: ["_meta": [:]], callBase: false),
            "tasks/get": ValidCall(base: ["taskId": "nope"], callBase: false),
            "tasks/result": ValidCall(base: ["taskId": "nope"], callBase: false),
            "tasks/cancel": ValidCall(base: ["taskId": "nope"], callBase: false),
            // Without the 2026-07-28 envelope these are -32601 before their params are read.
            "tasks/update": ValidCall(base: ["taskId": "nope"], untested: ["inputResponses"]),
            "subscriptions/listen": ValidCall(base: [:], untested: ["notifications"], absenceRefusedOtherwise: ["_meta"]),
            "jobs.cancel": ValidCall(base: ["id": 424242]),
            "diagnostics.sleep": ValidCall(base: ["ms": 0]),
            "diagnostics.spin": ValidCall(base: ["ms": 0]),
            "diagnostics.hold": ValidCall(base: ["ms": 0, "bytes": 0]),
            "diagnostics.fanout": ValidCall(base: ["children": 0]),
            "image.info": ValidCall(base: ["source": source]),
            "image.convert": ValidCall(base: ["source": source, "output": ["inline": true]]),
            "image.thumbnail": ValidCall(base: ["source": source, "size": 64, "output": ["inline": true]]),
            "image.scale": ValidCall(base: ["source": source, "factor": .number("0.5"), "output": ["inline": true]]),
            "image.palette": ValidCall(base: ["source": source]),
            "image.effect": ValidCall(base: ["source": source, "effects": [["grayscale": true]], "output": ["inline": true]]),
            "image.sticker": ValidCall(base: ["source": source, "output": ["inline": true]]),
            "image.subjects": ValidCall(base: ["source": source]),
            "image.animatedSticker": ValidCall(base: ["source": source, "output": ["inline": true, "format": "webm"],
                                                      "maskOutput": ["inline": true]]),
            "photo.process": ValidCall(base: ["source": source, "output": ["dir": .string(outputDir)]]),
            "photos.process": ValidCall(base: ["sources": [source], "output": ["dir": .string(outputDir)]]),
            // `animated` needs `filesDir`.
            "pack.export": ValidCall(base: ["stickers": [source], "output": ["inline": true], "filesDir": .string(folder)]),
        ]
    }

    // MARK: - The contract, read

    /// Reads parameters out of the OpenRPC document.
    struct ContractReader {
        let schemas: [String: JSONValue]

        init(document: JSONValue) {
            if case .object(let s)? = document["components"]?["schemas"] { schemas = s } else { schemas = [:] }
        }

        func resolve(_ schema: JSONValue) -> (schema: JSONValue, viaRef: Bool) {
            guard let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/components/schemas/") else { return (schema, false) }
            return (schemas[String(ref.dropFirst("#/components/schemas/".count))] ?? .object([:]), true)
        }

        static func kind(ofType type: JSONValue?) -> Kind? {
            switch type?.stringValue {
            case "integer": return .int
            case "number": return .number
            case "boolean": return .bool
            case "string": return .string
            case "object": return .object
            case "array": return .array
            default: break
            }
            if case .array(let types)? = type, Set(types.compactMap(\.stringValue)) == ["string", "integer"] { return .requestID }
            return nil
        }

        /// The alternatives of a `oneOf`, resolved.
        func alternatives(_ schema: JSONValue) -> [JSONValue]? {
            guard case .array(let options)? = schema["oneOf"] else { return nil }
            return options.map { resolve($0).schema }
        }

        func kind(of schema: JSONValue) -> Kind? {
            if let k = Self.kind(ofType: schema["type"]) { return k }
            if case .array(let values)? = schema["enum"], values.allSatisfy({ $0.stringValue != nil }) { return .string }
            // A oneOf whose alternatives are all objects (Source, Output) is an object.
            if let options = alternatives(schema), !options.isEmpty,
               options.allSatisfy({ Self.kind(ofType: $0["type"]) == .object }) { return .object }
            return nil
        }

        static func outOfBounds(_ schema: JSONValue, integer: Bool) -> [JSONValue] {
            func number(_ v: Double) -> JSONValue { integer ? .int(Int(v)) : .number(String(v)) }
            let step = integer ? 1.0 : 0.5
            var values: [JSONValue] = []
            if let m = schema["minimum"]?.doubleValue { values.append(number(m - step)) }
            if let m = schema["exclusiveMinimum"]?.doubleValue { values.append(number(m)) }
            if let m = schema["maximum"]?.doubleValue { values.append(number(m + step)) }
            if let m = schema["exclusiveMaximum"]?.doubleValue { values.append(number(m)) }
            return values
        }

        /// `schema` at `path` and the members under it: into inline objects and closed shared ones (an open shared
        /// one, MCP's `_meta`, takes what it is given); into the alternative of a oneOf that `base` chooses (the one
        /// whose required members it has), since a member of another alternative is refused as a second choice.
        func params(at path: String, schema given: JSONValue, required: Bool, base: JSONValue?, depth: Int = 0) -> [Param] {
            let (schema, viaRef) = resolve(given)
            guard let kind = kind(of: schema) else { return [] }
            let bounds = kind == .int || kind == .number ? Self.outOfBounds(schema, integer: kind == .int) : []
            var found = [Param(path: path, kind: kind, required: required, outOfBounds: bounds)]
            guard kind == .object, depth < 3 else { return found }
            let shape: JSONValue?
            if let options = alternatives(schema) {
                shape = options.first { option in
                    guard case .array(let keys)? = option["required"] else { return false }
                    return keys.allSatisfy { k in k.stringValue.map { base?[$0] != nil } ?? false }
                }
            } else {
                shape = schema
            }
            guard let shape, case .object(let properties)? = shape["properties"] else { return found }
            if viaRef && shape["additionalProperties"] != .bool(false) { return found }
            var requiredKeys: Set<String> = []
            if case .array(let keys)? = shape["required"] { requiredKeys = Set(keys.compactMap(\.stringValue)) }
            // An object the base leaves out that needs members: a member alone would be refused for the others.
            if base == nil && !requiredKeys.isEmpty { return found }
            for (name, sub) in properties.sorted(by: { $0.key < $1.key }) where name.allSatisfy({ $0.isLetter }) {
                found += params(at: "\(path).\(name)", schema: sub, required: requiredKeys.contains(name),
                                base: base?[name], depth: depth + 1)
            }
            return found
        }

        /// A method's parameters, from its entry in the document.
        func params(of entry: JSONValue, base: JSONValue) -> [Param] {
            guard case .array(let list)? = entry["params"] else { return [] }
            return list.flatMap { p -> [Param] in
                guard let name = p["name"]?.stringValue, let schema = p["schema"] else { return [] }
                return params(at: name, schema: schema, required: p["required"] == true, base: base[name])
            }
        }
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

    // MARK: - The test

    @Test func everyParameterOfEveryMethodRejectsWrongTypesAndValuesOutOfBounds() async throws {
        let folder = try TempFolder("params")
        defer { folder.remove() }
        let calls = Self.validCalls(folder: folder.path)
        let w = try WorkerProcess()
        let initialize = try await w.call(1, "initialize")
        guard case .array(let listed) = initialize["result"]?["methods"] else {
            Issue.record("initialize lists no methods: \(initialize)")
            return
        }
        let names = listed.compactMap { $0["name"]?.stringValue }
        #expect(names.count >= 20)
        let document = try #require(try await w.call(2, "rpc.discover")["result"])
        let reader = ContractReader(document: document)
        guard case .array(let entries)? = document["methods"] else {
            Issue.record("rpc.discover has no methods: \(document)")
            return
        }

        // Each request and what it must get: nil = anything but -32602 (the base decodes).
        var expected: [Int: (method: String, path: String?, what: String)] = [:]
        var id = 10
        func send(_ method: String, _ params: JSONValue?, path: String?, what: String) {
            id += 1
            expected[id] = (method, path, what)
            w.request(id, method, params)
        }
        var (typed, bounded) = (0, 0)
        for name in names {
            guard let entry = entries.first(where: { $0["name"]?.stringValue == name }) else {
                Issue.record("initialize lists \(name), the contract does not describe it")
                continue
            }
            let call = calls[name] ?? ValidCall(base: [:])
            let base = JSONValue.object(call.base)
            let params = reader.params(of: entry, base: base).filter { !call.untested.contains($0.path) }
            for p in params where p.required && !p.path.contains(".") && call.base[p.path] == nil
                && !call.absenceRefusedOtherwise.contains(p.path) {
                Issue.record("\(name) requires \(p.path): give HostileParamsTests.validCalls a valid call of it")
            }
            if call.callBase { send(name, base, path: nil, what: "valid base params") }
            for param in params {
                let keys = param.path.split(separator: ".")[...]
                var values = Self.wrongValues(for: param.kind)
                if param.required && !call.absenceRefusedOtherwise.contains(param.path) { values.append(.null) }
                typed += values.count
                bounded += param.outOfBounds.count
                for value in values + param.outOfBounds {
                    send(name, Self.replacing(base, at: keys, with: value), path: param.path, what: "\(param.path) = \(value.jsonString)")
                }
            }
            if !params.isEmpty {
                send(name, [1, 2], path: "params", what: "params by position")
            }
        }
        // The contract is read, not skipped: the image methods' numbers have bounds.
        #expect(typed > 300, "wrong-typed values sent: \(typed)")
        #expect(bounded > 40, "out-of-bounds values sent: \(bounded)")
        // params that are neither object nor array are not valid requests at all.
        id += 1
        w.send(raw: #"{"jsonrpc":"2.0","id":\#(id),"method":"ping","params":"x"}"#)
        let refusedID = id

        var replies: [Int: JSONValue] = [:]
        while replies.count < expected.count + 1 {
            let m = try #require(try await w.next())
            guard m["method"] == nil, let i = m["id"]?.intValue, i > 10 else { continue }
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
