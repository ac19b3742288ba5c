"""A Python program on the native provider through the generated Python SDK (sdk/python, `platform_pulumi`,
installed into the test venv by scripts/ensure-language-python): a group under a group, an identity with
claimMatch, a role binding to the built-in viewer role found with the SDK's lookup (iam.get_role, the schema's
platform:iam:getRole)."""
import pulumi
from platform_pulumi import iam

cfg = pulumi.Config()

viewer = iam.get_role(name="viewer").value

team = iam.Group("team", parent_uid=cfg.require("orgUid"), name="py-team", description=cfg.get("desc") or "")
sub = iam.Group("sub", parent_uid=team.uid, name="py-sub", description="")
ci = iam.Identity(
    "ci",
    parent_uid=team.uid,
    name="py-ci",
    claim_match=iam.ClaimMatchArgs(
        issuer="https://token.actions.githubusercontent.com",
        subject="repo:example/app:ref:refs/heads/main",
    ),
)
binding = iam.RoleBinding("ciViewer", group_uid=sub.uid, identity_uid=ci.uid, role_uid=viewer.uid)

pulumi.export("teamUid", team.uid)
pulumi.export("subUid", sub.uid)
pulumi.export("subParent", sub.parent_uid)
pulumi.export("ciUid", ci.uid)
pulumi.export("bindingUid", binding.uid)
pulumi.export("viewerUid", viewer.uid)
