import JSONRPCTransport
import Testing

/// A string enum given a value it does not have: the error names the accepted values, in the client's terms.
@Suite(.timeLimit(.minutes(10)))
struct StringEnumDecodingTests {
    enum Fit: String, Decodable, CaseIterable { case contain, cover }
    struct Params: Decodable { var fit: Fit; var fits: [Fit]? }

    private func reason(_ text: String) -> (path: String, reason: String)? {
        do {
            _ = try JSONValueDecoder().decode(Params.self, from: try JSONParser.parse(Array(text.utf8)))
            return nil
        } catch {
            let rpc = RPCError(error)
            return (rpc.data?["path"]?.stringValue ?? "", rpc.data?["reason"]?.stringValue ?? "")
        }
    }

    @Test func anUnknownValueIsRefusedWithTheAcceptedOnes() {
        let failure = reason(#"{"fit":"fill"}"#)
        #expect(failure?.path == "fit")
        #expect(failure?.reason == #"must be one of "contain", "cover"; got "fill""#, "\(String(describing: failure))")
        #expect(failure.map { !$0.reason.contains("Cannot initialize") } ?? false)
        let nested = reason(#"{"fit":"cover","fits":["contain","stretch"]}"#)
        #expect(nested?.path == "fits[1]", "\(String(describing: nested))")
        #expect(nested?.reason.hasPrefix(#"must be one of "contain", "cover""#) == true, "\(String(describing: nested))")
    }

    @Test func knownValuesAndOtherTypesDecodeAsBefore() throws {
        #expect(reason(#"{"fit":"cover"}"#) == nil)
        // A number is a type mismatch, said as such, not a list of names.
        #expect(reason(#"{"fit":3}"#)?.reason == "expected a string", "\(String(describing: reason(#"{"fit":3}"#)))")
    }
}
