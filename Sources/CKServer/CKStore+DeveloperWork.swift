import CKModel

/// The store's developer work, each through the door as the declared developer (see `CKStore.perform`).
extension CKStore {
    /// Identifiers of all containers, sorted.
    public func containerIDs() throws(CKError) -> [String] {
        try perform(.containerList, container: nil) { () throws(CKError) in try containerIDsBody() }
    }

    /// Makes sure a container exists, creating it if missing; `use` makes it current (`createContainerBody`).
    @discardableResult
    public func createContainer(_ id: String, use: Bool = false) throws(CKError) -> Bool {
        try perform(.containerCreate, container: id) { () throws(CKError) in try createContainerBody(id, use: use) }
    }

    /// Creates a container unless it exists; true when this call created it (`ensureContainerBody`).
    public func ensureContainer(_ id: String) throws(CKError) -> Bool {
        try perform(.containerCreate, container: id) { () throws(CKError) in try ensureContainerBody(id) }
    }

    /// Makes a container current.
    public func useContainer(_ id: String) throws(CKError) {
        try perform(.containerUse, container: id) { () throws(CKError) in try useContainerBody(id) }
    }

    /// Deletes a container and all its data (`deleteContainerBody`).
    public func deleteContainer(_ id: String) throws(CKError) {
        try perform(.containerDelete, container: id) { () throws(CKError) in try deleteContainerBody(id) }
    }

    /// Imports `doc` into a container that does not exist yet, as one operation (`importFixturesBody`); the
    /// import itself passes the door again as `caller`'s fixtures import.
    public func importFixtures(intoNewContainer id: String, _ doc: JSON, into environment: Environment, as caller: Caller,
                               allUsers: Bool, replace: Bool, label: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        try importFixtures(intoNewContainer: id, FixtureDocument(doc), into: environment, as: caller, allUsers: allUsers,
                           replace: replace, label: label, progress: progress)
    }

    /// The same for a document read as the import goes (`ck import` of a file).
    public func importFixtures(intoNewContainer id: String, _ doc: FixtureDocument, into environment: Environment, as caller: Caller,
                               allUsers: Bool, replace: Bool, label: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        try perform(.containerCreate, container: id, environment: environment,
                    validate: { () throws(CKError) in try refuseNearMiss(container: id) }) { () throws(CKError) in
            try importFixturesBody(intoNewContainer: id, doc, into: environment, as: caller, allUsers: allUsers, replace: replace,
                                   label: label, progress: progress)
        }
    }
}
