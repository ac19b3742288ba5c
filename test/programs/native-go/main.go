// A Go program on the native provider plugin through the generated Go SDK (sdk/go/platform, by go.mod's replace):
// a group under a group, an identity with claimMatch, a role binding to the built-in viewer role found with the
// SDK's lookup (iam.LookupRole, the schema's platform:iam:getRole).
package main

import (
	"platform-pulumi/sdk/go/platform/iam"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		viewer, err := iam.LookupRole(ctx, &iam.LookupRoleArgs{Name: pulumi.StringRef("viewer")})
		if err != nil {
			return err
		}
		team, err := iam.NewGroup(ctx, "team", &iam.GroupArgs{
			ParentUid:   pulumi.String(cfg.Require("orgUid")),
			Name:        pulumi.String("go-team"),
			Description: pulumi.String(cfg.Get("desc")),
		})
		if err != nil {
			return err
		}
		sub, err := iam.NewGroup(ctx, "sub", &iam.GroupArgs{ParentUid: team.Uid, Name: pulumi.String("go-sub"), Description: pulumi.String("")})
		if err != nil {
			return err
		}
		ci, err := iam.NewIdentity(ctx, "ci", &iam.IdentityArgs{
			ParentUid: team.Uid,
			Name:      pulumi.String("go-ci"),
			ClaimMatch: &iam.ClaimMatchArgs{
				Issuer:  pulumi.String("https://token.actions.githubusercontent.com"),
				Subject: pulumi.String("repo:example/app:ref:refs/heads/main"),
			},
		})
		if err != nil {
			return err
		}
		binding, err := iam.NewRoleBinding(ctx, "ciViewer", &iam.RoleBindingArgs{
			GroupUid:    sub.Uid,
			IdentityUid: ci.Uid,
			RoleUid:     pulumi.String(viewer.Value.Uid),
		})
		if err != nil {
			return err
		}
		ctx.Export("teamUid", team.Uid)
		ctx.Export("subUid", sub.Uid)
		ctx.Export("subParent", sub.ParentUid)
		ctx.Export("ciUid", ci.Uid)
		ctx.Export("bindingUid", binding.Uid)
		ctx.Export("viewerUid", pulumi.String(viewer.Value.Uid))
		return nil
	})
}
