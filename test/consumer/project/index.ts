/**
 * The consumer tier's program, written as a user of the installed package writes one: every resource kind (IAM,
 * registry and events), `X.get`, and both lookup forms (a plain async lookup awaited in an async main, and an
 * `...Output` lookup wired straight into an input). Credentials come from PLATFORM_API_URL / PLATFORM_TOKEN in the environment;
 * the root group's uid from stack config `platform:orgUid`.
 */
import * as pulumi from "@pulumi/pulumi";
import {
    AccountAssociation,
    Group,
    GroupInvite,
    Identity,
    IdentityProvider,
    Overlay,
    OverlayBinding,
    Repo,
    Role,
    RoleBinding,
    Subscription,
    Tag,
    getRoleOutput,
    getRoles,
} from "platform-pulumi";

const orgUid = new pulumi.Config("platform").require("orgUid");
const config = new pulumi.Config();

export = async () => {
    // A plain async lookup.
    const [editor] = await getRoles({ name: "editor" });
    if (editor === undefined) throw new Error("the API has no role named editor");

    // An existing object read, not managed.
    const root = Group.get("root", orgUid);

    const team = new Group("team", { parentUid: orgUid, name: "consumer-team", description: config.get("teamDescription") ?? "Declared by the consumer tier" });
    const ci = new Group("ci", { parentUid: team.uid, name: "ci-cd", description: "CI jobs" });
    const auditor = new Role("auditor", {
        parentUid: team.uid,
        name: "auditor",
        description: "Lists groups and identities",
        capabilities: ["groups.list", "identity.list"],
    });
    const bot = new Identity("ci-bot", {
        parentUid: ci.uid,
        name: "ci-bot",
        description: "GitHub Actions on main",
        claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
    });
    new RoleBinding("ci-bot-editor", { groupUid: ci.uid, identityUid: bot.uid, roleUid: editor.uid });
    // An Output lookup, its field wired straight into an input. Viewer one group above ci-bot's own: the pack's
    // identity-bound-above-its-group finds it, at low (reads only), which fails nothing.
    new RoleBinding("ci-bot-viewer", { groupUid: team.uid, identityUid: bot.uid, roleUid: getRoleOutput({ name: "viewer" }).uid });
    new IdentityProvider("okta", {
        parentUid: team.uid,
        name: "okta",
        description: "Company SSO",
        oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3" },
        clientSecret: config.requireSecret("oktaClientSecret"),
    });
    new AccountAssociation("aws", { groupUid: team.uid, name: "aws", description: "Production account", amazon: { account: "123456789012" } });
    const invite = new GroupInvite("contractor", { parentUid: team.uid, roleUid: auditor.uid, ttl: "72h" });

    // The registry and events.
    const app = new Repo("app", {
        parentUid: team.uid,
        name: "app",
        description: "The product image",
        catalogTier: "CATALOG_TIER_APPLICATION",
        aliases: ["product"],
        readme: "# app\n",
    });
    new Tag("app-latest", { repoUid: app.uid, name: "latest", digest: `sha256:${"a".repeat(64)}` });
    const debug = new Overlay("debug-tools", { parentUid: team.uid, name: "debug-tools", config: { contents: { packages: ["bash", "curl"] } } });
    new OverlayBinding("app-debug", { repoUid: app.uid, overlay: debug.uid, tags: ["latest"] });
    new Subscription("hooks", { parentUid: team.uid, sink: "https://hooks.example.com/platform" });

    return {
        rootName: root.name,
        teamUid: team.uid,
        botUid: bot.uid,
        ciUid: ci.uid,
        inviteCode: invite.code,
        nodeVersion: process.version,
    };
};
