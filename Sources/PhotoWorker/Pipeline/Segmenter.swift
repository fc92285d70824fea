/// Which cut-out makes a sticker: `network` (the default) fuses U²-Netp's subject map with the
/// classical saliency maps (`StickerCutPlan`); `classical` is the classical cut alone (saliency,
/// colour-model graph cut, face prior), with no network. A result names the one that ran:
/// `network` falls back to `classical` when the model cannot be loaded.
public enum Segmenter: String, Sendable, Codable, CaseIterable {
    case network
    case classical
}
