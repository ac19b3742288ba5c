// Command pulumi-language-nodejs is a front for the vendor's Node.js language host.
//
// The Pulumi CLI starts it as the `nodejs` language plugin. It starts the vendor host
// (pulumi-language-nodejs-vendor, beside this binary) with the same arguments, and forwards every gRPC call to
// it byte for byte, except one: RunPlugin. The vendor host this project can build (from sdk/v3 v3.68.0, the
// newest the module proxy serves) answers RunPlugin with "not supported", and CLI >= 3.221 starts Node.js policy
// packs only through RunPlugin. For a policy pack (kind "analyzer") RunPlugin does what the old
// pulumi-analyzer-policy shim did: run `node @pulumi/pulumi/cmd/run-policy-pack <engine> <pack dir>` in the
// pack's folder, streaming its output back.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

const runPluginMethod = "/pulumirpc.LanguageRuntime/RunPlugin"

// rawCodec passes message bytes through unchanged, so calls are forwarded without knowing their types.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func main() {
	go watchParent(os.Getppid(), exitWithParent)
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs (front): %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	vendorPath := filepath.Join(filepath.Dir(exe), "pulumi-language-nodejs-vendor")
	child := exec.Command(vendorPath, os.Args[1:]...)
	child.Stderr = os.Stderr
	setParentDeathSignal(child)
	out, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", vendorPath, err)
	}
	defer adopt(child.Process)()
	reader := bufio.NewReader(out)
	portLine, err := reader.ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the vendor host's port: %w", err)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(portLine),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(400*1024*1024), grpc.MaxCallSendMsgSize(400*1024*1024)))
	if err != nil {
		return err
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	server := grpc.NewServer(
		grpc.ForceServerCodec(rawCodec{}),
		grpc.MaxRecvMsgSize(400*1024*1024),
		grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			method, _ := grpc.MethodFromServerStream(ss)
			if method == runPluginMethod {
				return runPlugin(ss)
			}
			return forward(ss, conn, method)
		}))
	// The engine reads the plugin's port from its first line of output.
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)
	go func() { _, _ = io.Copy(os.Stdout, reader) }()
	go func() {
		_ = child.Wait()
		server.Stop()
	}()
	return server.Serve(lis)
}

// forward relays one call (any streaming shape) to the vendor host and its answers back.
func forward(ss grpc.ServerStream, conn *grpc.ClientConn, method string) error {
	ctx := ss.Context()
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return err
	}
	go func() {
		for {
			var msg []byte
			if err := ss.RecvMsg(&msg); err != nil {
				_ = cs.CloseSend()
				return
			}
			if err := cs.SendMsg(&msg); err != nil {
				return
			}
		}
	}()
	for {
		var msg []byte
		if err := cs.RecvMsg(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(&msg); err != nil {
			return err
		}
	}
}

// streamWriter sends what a plugin writes as RunPluginResponse messages.
type streamWriter struct {
	ss     grpc.ServerStream
	stderr bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	resp := &pulumirpc.RunPluginResponse{}
	chunk := append([]byte(nil), p...)
	if w.stderr {
		resp.Output = &pulumirpc.RunPluginResponse_Stderr{Stderr: chunk}
	} else {
		resp.Output = &pulumirpc.RunPluginResponse_Stdout{Stdout: chunk}
	}
	b, err := proto.Marshal(resp)
	if err != nil {
		return 0, err
	}
	if err := w.ss.SendMsg(&b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// runPlugin starts a Node.js policy pack the way the pulumi-analyzer-policy shim did.
func runPlugin(ss grpc.ServerStream) error {
	var raw []byte
	if err := ss.RecvMsg(&raw); err != nil {
		return err
	}
	req := &pulumirpc.RunPluginRequest{}
	if err := proto.Unmarshal(raw, req); err != nil {
		return err
	}
	if req.Kind != "analyzer" {
		return status.Errorf(codes.Unimplemented, "RunPlugin supports policy packs (kind analyzer) only, got %q", req.Kind)
	}
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.Pwd
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	resolve := exec.CommandContext(ss.Context(), node, "-e", "console.log(require.resolve('@pulumi/pulumi/cmd/run-policy-pack'))")
	resolve.Dir = dir
	where, err := resolve.Output()
	if err != nil {
		return status.Errorf(codes.FailedPrecondition,
			"it looks like the policy pack's dependencies are not installed; cannot resolve @pulumi/pulumi/cmd/run-policy-pack from %s", dir)
	}
	args := append([]string{strings.TrimSpace(string(where))}, req.Args...)
	args = append(args, dir)
	cmd := exec.CommandContext(context.WithoutCancel(ss.Context()), node, args...)
	cmd.Dir = dir
	cmd.Env = req.Env
	if len(cmd.Env) == 0 {
		cmd.Env = os.Environ()
	}
	cmd.Stdout = streamWriter{ss: ss}
	cmd.Stderr = streamWriter{ss: ss, stderr: true}
	setParentDeathSignal(cmd)
	code := int32(0)
	if err := cmd.Start(); err != nil {
		return err
	}
	forget := adopt(cmd.Process)
	err = cmd.Wait()
	forget()
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return err
		}
		code = int32(exitErr.ExitCode())
	}
	b, err := proto.Marshal(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
	if err != nil {
		return err
	}
	return ss.SendMsg(&b)
}
