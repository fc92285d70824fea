/// Tuning for `StickerExtractor`. The defaults are what the sticker-dev benchmark was measured with.
public struct StickerOptions: Sendable {
    /// Width in source pixels of the outline drawn around the subject; 0 draws none.
    public var outlineWidth: Int
    /// Colour of the outline (its alpha is honoured).
    public var outlineColor: RGBA
    /// Longest side, in pixels, of the reduced copy that is segmented. Larger is slower and only
    /// marginally more accurate because the mask edge is refined at full resolution anyway.
    /// Clamped to 32...1024.
    public var workingSize: Int
    /// Standard deviation, in source pixels, of the blur that softens the mask edge; 0 keeps a hard edge.
    /// Clamped to 0...16.
    public var feather: Double
    /// Whether frontal faces are looked for and a person's head and upper body below each one are
    /// favoured as subject (`FaceDetector`, `PersonPrior`). Off, the cut uses bottom-up cues alone.
    public var detectsFaces: Bool
    /// A learned subject map (U²-Netp's, say): when given, it leads both saliency hypotheses (the
    /// classical maps only move it where it is unsure), and each hypothesis is split at its
    /// threshold instead of cut by colour (see `StickerCutPlan`).
    public var subjectMap: SubjectMap?
    /// How much the learned map weighs against the classical saliency in the cut's prior (0...1).
    public var subjectMapWeight: Float = 0.7
    /// The learned map enters the priors raised to this power. Below 1 it lifts weak but structured
    /// responses (a sigmoid map gives thin limbs 0.01-0.1 against a background near 0) towards the
    /// split.
    public var subjectMapExponent: Float = 1
    /// What a learned map (``subjectMap``) that is ``SubjectMap/isDecisive`` is weighed against: with this, nothing
    /// (the map alone is the cut-out's prior, as with ``subjectMapWeight`` 1, and the classical maps and the faces
    /// are not used); without, the classical maps as for any map. An undecided map is weighed against them either
    /// way. When the classical maps are made (after the map and only if it is undecided, or guessed beside it and
    /// dropped) is the runner's business, never this option's: the cut-out is the same.
    public var learnedMapAloneWhenDecisive = false
    /// Whether the cut-out's soft edge takes the subject's estimated own colour (`ForegroundEstimator`) instead of
    /// the photo's, which mixes in the old background (a halo on a new backdrop). Alpha is the same either way.
    public var decontaminatesEdges = true
    /// Which subject to cut out (`SubjectPrompt`), in the photo's pixels; nil is the cut's own guess (the main
    /// subject). The caller validates it against the photo (``SubjectPrompt/validate(width:height:)``).
    public var subject: SubjectPrompt?

    public init(
        outlineWidth: Int = 0,
        outlineColor: RGBA = RGBA(r: 255, g: 255, b: 255),
        workingSize: Int = 200,
        feather: Double = 1.0,
        detectsFaces: Bool = true
    ) {
        self.outlineWidth = outlineWidth
        self.outlineColor = outlineColor
        self.workingSize = workingSize
        self.feather = feather
        self.detectsFaces = detectsFaces
    }
}
