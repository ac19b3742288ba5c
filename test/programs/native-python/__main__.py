"""A Python program that reaches the native provider by type token alone (raw CustomResources, until generated
SDKs exist): a group under a group, an identity with claimMatch, a role binding to the built-in viewer role
found through the plugin's Invoke (platform:iam:getRole)."""
import pulumi

cfg = pulumi.Config()
# Output properties are named with None so the engine's outputs reach the resource objects.
OUTS = {"uid": None, "createTime": None, "updateTime": None}

viewer = pulumi.runtime.invoke("platform:iam:getRole", {"name": "viewer"}).value["value"]

team = pulumi.CustomResource(
    "platform:iam:Group", "team",
    {"parentUid": cfg.require("orgUid"), "name": "py-team", "description": cfg.get("desc") or "", **OUTS},
)
sub = pulumi.CustomResource("platform:iam:Group", "sub", {"parentUid": team.uid, "name": "py-sub", "description": "", **OUTS})
ci = pulumi.CustomResource(
    "platform:iam:Identity", "ci",
    {
        "parentUid": team.uid,
        "name": "py-ci",
        "claimMatch": {
            "issuer": "https://token.actions.githubusercontent.com",
            "subject": "repo:example/app:ref:refs/heads/main",
        },
        **OUTS,
    },
)
binding = pulumi.CustomResource(
    "platform:iam:RoleBinding", "ciViewer",
    {"groupUid": sub.uid, "identityUid": ci.uid, "roleUid": viewer["uid"], "uid": None},
)

pulumi.export("teamUid", team.uid)
pulumi.export("subUid", sub.uid)
pulumi.export("subParent", sub.parentUid)
pulumi.export("ciUid", ci.uid)
pulumi.export("bindingUid", binding.uid)
pulumi.export("viewerUid", viewer["uid"])
