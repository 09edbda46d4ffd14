import CKFiles
import CKModel

extension StoreRoot {
    /// The one writer of a store's root files: applies root changes in order, each crash-safe. Call with the root
    /// lock held.
    package func apply(_ changes: [RootChange]) throws(CKError) {
        for change in changes {
            switch change {
            case .config(let c): try writeConfig(c)
            case .containerInfo(let id, let o): try ContainerFile(path: containerInfoPath(id)).write(o)
            case .serveAuth(let id, let json): try JSONFile.write(serveAuthPath(id), json)
            case .createContainer(let id, let created): try createContainerFiles(id, created: created)
            case .deleteContainer(let id, let config): try deleteContainer(id, config: config)
            case .clock(let clock): try ClockFile(root: path).write(clock)
            }
        }
    }
}
