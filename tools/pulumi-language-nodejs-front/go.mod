// A front for the vendor's Node.js language host: forwards every gRPC call to it unchanged and adds RunPlugin
// for policy packs, which the v3.68.0 host (the newest the module proxy serves, see ../pulumi-language-nodejs)
// answers "not supported". CLI >= 3.221 starts Node.js policy packs only through RunPlugin.
module platform-pulumi/tools/pulumi-language-nodejs-front

go 1.26.0

require (
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)
