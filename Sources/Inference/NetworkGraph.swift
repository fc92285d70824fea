/// The fixed-shape graph written by scripts/gen-u2netp.py: tensors by number, ops in execution order,
/// weights as offsets (in floats) into the weights file.
struct NetworkGraph: Decodable, Sendable {
    struct Input: Decodable, Sendable {
        var tensor: Int
        var channels: Int
        var height: Int
        var width: Int
    }

    /// One operation. `in` is one tensor or a list, depending on the op.
    struct Op: Decodable, Sendable {
        enum Kind: String, Decodable, Sendable { case conv, relu, maxpool, resize, concat, add, sigmoid }
        var op: Kind
        var inputs: [Int]
        var out: Int
        // conv
        var cin: Int?
        var cout: Int?
        var k: Int?
        var dilation: Int?
        var relu: Bool?
        var weights: Int?
        var bias: Int?
        // resize
        var height: Int?
        var width: Int?

        private enum Key: String, CodingKey {
            case op, `in`, out, cin, cout, k, dilation, relu, weights, bias, height, width
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            op = try c.decode(Kind.self, forKey: .op)
            if let list = try? c.decode([Int].self, forKey: .in) {
                inputs = list
            } else {
                inputs = [try c.decode(Int.self, forKey: .in)]
            }
            out = try c.decode(Int.self, forKey: .out)
            cin = try c.decodeIfPresent(Int.self, forKey: .cin)
            cout = try c.decodeIfPresent(Int.self, forKey: .cout)
            k = try c.decodeIfPresent(Int.self, forKey: .k)
            dilation = try c.decodeIfPresent(Int.self, forKey: .dilation)
            relu = try c.decodeIfPresent(Bool.self, forKey: .relu)
            weights = try c.decodeIfPresent(Int.self, forKey: .weights)
            bias = try c.decodeIfPresent(Int.self, forKey: .bias)
            height = try c.decodeIfPresent(Int.self, forKey: .height)
            width = try c.decodeIfPresent(Int.self, forKey: .width)
        }
    }

    var name: String
    var input: Input
    var output: Int
    var tensors: Int
    var ops: [Op]
    var parameters: Int
}
