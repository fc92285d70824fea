import Foundation

/// sRGB <-> CIELAB (D65) conversion and the CIEDE2000 colour difference.
public enum ColorScience {
    /// sRGB 8-bit value -> linear light, precomputed (an immutable global `let` is thread-safe).
    static let linearFromSRGB: [Double] = (0..<256).map { linear(Double($0) / 255) }

    /// A gamma-encoded sRGB value in 0...1 -> linear light.
    static func linear(_ c: Double) -> Double {
        c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    // D65 white point (the sRGB reference white), normalising X and Z.
    private static let whiteX = 0.95047
    private static let whiteZ = 1.08883

    /// Rec. 601 luma of gamma-encoded R′G′B′ on any scale: the weights of OpenCV's grey conversion,
    /// used by the face search and the defocus cue.
    @inline(__always)
    static func luma601(_ r: Float, _ g: Float, _ b: Float) -> Float { 0.299 * r + 0.587 * g + 0.114 * b }

    /// CIELAB (D65) of an 8-bit sRGB colour.
    public static func lab(fromSRGB r: UInt8, _ g: UInt8, _ b: UInt8) -> (L: Double, a: Double, b: Double) {
        lab(fromLinearRGB: linearFromSRGB[Int(r)], linearFromSRGB[Int(g)], linearFromSRGB[Int(b)])
    }

    /// CIELAB (D65) of a linear-light RGB colour (each channel 0...1).
    static func lab(fromLinearRGB lr: Double, _ lg: Double, _ lb: Double) -> (L: Double, a: Double, b: Double) {
        let x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / whiteX
        let y = 0.2126729 * lr + 0.7151522 * lg + 0.0721750 * lb
        let z = (0.0193339 * lr + 0.1191920 * lg + 0.9503041 * lb) / whiteZ
        let fx = labF(x), fy = labF(y), fz = labF(z)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The nearest 8-bit sRGB colour to a CIELAB (D65) colour; out-of-gamut values are clipped
    /// per channel.
    public static func srgb(fromLab L: Double, _ a: Double, _ b: Double) -> (r: UInt8, g: UInt8, b: UInt8) {
        let fy = (L + 16) / 116
        let fx = fy + a / 500
        let fz = fy - b / 200
        let x = labFInverse(fx) * whiteX
        let y = labFInverse(fy)
        let z = labFInverse(fz) * whiteZ
        let lr = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
        let lg = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
        let lb = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
        return (encode(lr), encode(lg), encode(lb))
    }

    /// CIEDE2000 colour difference (kL = kC = kH = 1) between two CIELAB colours, after
    /// Sharma, Wu & Dalal (2005).
    public static func ciede2000(_ x: (Double, Double, Double), _ y: (Double, Double, Double)) -> Double {
        let (L1, a1, b1) = x
        let (L2, a2, b2) = y
        let C1 = (a1 * a1 + b1 * b1).squareRoot()
        let C2 = (a2 * a2 + b2 * b2).squareRoot()
        let Cbar = (C1 + C2) / 2
        let Cbar7 = pow7(Cbar)
        let G = 0.5 * (1 - (Cbar7 / (Cbar7 + 6_103_515_625)).squareRoot()) // 25^7
        let a1p = (1 + G) * a1, a2p = (1 + G) * a2
        let C1p = (a1p * a1p + b1 * b1).squareRoot()
        let C2p = (a2p * a2p + b2 * b2).squareRoot()
        let h1p = hueAngle(b1, a1p), h2p = hueAngle(b2, a2p)

        let dLp = L2 - L1
        let dCp = C2p - C1p
        var dhp = 0.0
        if C1p * C2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (C1p * C2p).squareRoot() * sin(dhp * .pi / 360)

        let Lbarp = (L1 + L2) / 2
        let Cbarp = (C1p + C2p) / 2
        var hbarp = h1p + h2p
        if C1p * C2p != 0 {
            if abs(h1p - h2p) <= 180 {
                hbarp /= 2
            } else if h1p + h2p < 360 {
                hbarp = (hbarp + 360) / 2
            } else {
                hbarp = (hbarp - 360) / 2
            }
        }
        let T = hueWeight(hbarp)
        let q = (hbarp - 275) / 25
        let dTheta = 30 * exp(-q * q)
        let Cbarp7 = pow7(Cbarp)
        let RC = 2 * (Cbarp7 / (Cbarp7 + 6_103_515_625)).squareRoot()
        let L50 = (Lbarp - 50) * (Lbarp - 50)
        let SL = 1 + 0.015 * L50 / (20 + L50).squareRoot()
        let SC = 1 + 0.045 * Cbarp
        let SH = 1 + 0.015 * Cbarp * T
        let RT = -sin(2 * dTheta * .pi / 180) * RC
        let l = dLp / SL, c = dCp / SC, h = dHp / SH
        return (l * l + c * c + h * h + RT * c * h).squareRoot()
    }

    /// CIEDE2000's T(h̄′) = 1 − 0.17 cos(h − 30°) + 0.24 cos 2h + 0.32 cos(3h + 6°) − 0.20 cos(4h − 63°),
    /// from one cosine and one sine of h by the multiple-angle formulas (the palette calls CIEDE2000
    /// in its inner loops, and four libm cosines were a tenth of a palette request).
    @inline(__always) private static func hueWeight(_ degrees: Double) -> Double {
        let h = degrees * .pi / 180
        let c = cos(h), s = sin(h)
        let c2 = 2 * c * c - 1, s2 = 2 * s * c
        let c3 = c * c2 - s * s2, s3 = s * c2 + c * s2
        let c4 = 2 * c2 * c2 - 1, s4 = 2 * s2 * c2
        // cos and sin of 30°, 6° and 63°.
        let cos30 = 0.8660254037844387, sin30 = 0.5
        let cos6 = 0.9945218953682733, sin6 = 0.10452846326765347
        let cos63 = 0.45399049973954675, sin63 = 0.8910065241883679
        return 1 - 0.17 * (c * cos30 + s * sin30) + 0.24 * c2
            + 0.32 * (c3 * cos6 - s3 * sin6) - 0.20 * (c4 * cos63 + s4 * sin63)
    }

    @inline(__always) private static func pow7(_ x: Double) -> Double {
        let x2 = x * x
        return x2 * x2 * x2 * x
    }

    /// Hue angle in degrees, 0..<360 (0 for a neutral colour).
    private static func hueAngle(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * 180 / .pi
        return h < 0 ? h + 360 : h
    }

    private static func labF(_ t: Double) -> Double {
        t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16) / 116
    }

    private static func labFInverse(_ f: Double) -> Double {
        let f3 = f * f * f
        return f3 > 216.0 / 24389.0 ? f3 : (116 * f - 16) * 27.0 / 24389.0
    }

    private static func encode(_ linear: Double) -> UInt8 {
        let c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(max(linear, 0), 1 / 2.4) - 0.055
        let v = (c * 255).rounded()
        guard v.isFinite else { return 0 }
        return UInt8(min(max(v, 0), 255))
    }
}
