import CKModel

extension Device {
    /// The names and types of a zone's server copies (without decoding the records), by name.
    package func serverRecordTypes(zone: String) throws(CKError) -> [(name: String, type: String)] {
        try rows("SELECT name, type FROM server_records WHERE zone = ?1 ORDER BY name", [zone]) { ($0.text(0), $0.text(1)) }
    }
}
