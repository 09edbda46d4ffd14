// The umbrella: `import CKCore` gives the command line, the HTTP face and Swift programs every public layer.
@_exported import CKModel
@_exported import CKSchema
@_exported import CKQuery
@_exported import CKServer
@_exported import CKSync
@_exported import CKDataModel
