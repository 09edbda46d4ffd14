import CckCrypto

/// The cryptography of `ck serve`'s authentication, all through libcrypto (no hand-written cryptography):
/// ECDSA P-256 signature checks over SHA-256, SHA-256 of request bodies, and HMAC-SHA256 for rotated web tokens.
public enum SignatureVerifier {
    /// Why `pem` is not a P-256 public key in PEM form; nil when it is one.
    public static func publicKeyProblem(_ pem: String) -> String? {
        guard pem.contains("-----BEGIN PUBLIC KEY-----") else {
            if pem.contains("PRIVATE KEY-----") {
                return "it holds a private key; give the public key ('openssl ec -in KEY.pem -pubout -out public.pem')"
            }
            return "it is not a PEM public key (no '-----BEGIN PUBLIC KEY-----' line)"
        }
        guard let key = PublicKey(pem) else { return "its PEM public key can't be read" }
        guard key.groupName == "prime256v1" else {
            return "it is not an EC P-256 (prime256v1) key" + (key.groupName.map { " but \($0)" } ?? "")
        }
        return nil
    }

    /// Whether `signature` (DER) is an ECDSA-SHA256 signature of `message` by the P-256 key in `pem`.
    public static func verify(pem: String, message: [UInt8], signature: [UInt8]) -> Bool {
        guard let key = PublicKey(pem), key.groupName == "prime256v1" else { return false }
        return key.verify(message: message, signature: signature)
    }

    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { b in
            out.withUnsafeMutableBufferPointer { o in EVP_Digest(b.baseAddress, b.count, o.baseAddress, &length, EVP_sha256(), nil) }
        }
        if ok != 1 { ERR_clear_error() }
        return out
    }

    /// HMAC-SHA256 of `data` under `key`.
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = 0
        let result = key.withUnsafeBytes { k in
            data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, k.baseAddress, k.count, d.baseAddress, d.count, o.baseAddress, 32, &length)
                }
            }
        }
        if result == nil { ERR_clear_error() }
        return out
    }
}

/// A public key read from PEM, freed when dropped.
private final class PublicKey {
    let pkey: OpaquePointer

    init?(_ pem: String) {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { b in
            guard let bio = BIO_new_mem_buf(b.baseAddress, Int32(b.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else {
            ERR_clear_error()
            return nil
        }
        pkey = key
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The EC group's name (`prime256v1`); nil for a key that is not EC.
    var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func verify(message: [UInt8], signature: [UInt8]) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else {
            ERR_clear_error()
            return false
        }
        let ok = signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in EVP_DigestVerify(ctx, s.baseAddress, s.count, m.baseAddress, m.count) }
        }
        if ok != 1 { ERR_clear_error() }
        return ok == 1
    }
}
