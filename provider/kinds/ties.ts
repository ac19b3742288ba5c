/**
 * Compile-time ties between the four places a resource's fields are written (`declare.ts`, "How to declare a new
 * resource"): the declaration's `fields` are tied to `XInputs` by `ResourceDeclaration`; here `XArgs` and the
 * class's `declare readonly` outputs are tied to `XInputs` and `XOutputs`. A field added to, renamed in or removed
 * from one of them and not the others fails `tsc` here, naming the kind.
 *
 * Types only: the file compiles to nothing, and nothing imports it (the public `.d.ts` of `XArgs` stays plain
 * interfaces, as Pulumi's template tsconfig needs).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { AccountAssociation, AccountAssociationArgs, AccountAssociationInputs, AccountAssociationOutputs } from "./accountAssociation";
import type { Group, GroupArgs, GroupInputs, GroupOutputs } from "./group";
import type { GroupInvite, GroupInviteArgs, GroupInviteInputs, GroupInviteOutputs } from "./groupInvite";
import type { Identity, IdentityArgs, IdentityInputs, IdentityOutputs } from "./identity";
import type { IdentityProvider, IdentityProviderArgs, IdentityProviderInputs, IdentityProviderOutputs } from "./identityProvider";
import type { Overlay, OverlayArgs, OverlayInputs, OverlayOutputs } from "./overlay";
import type { OverlayBinding, OverlayBindingArgs, OverlayBindingInputs, OverlayBindingOutputs } from "./overlayBinding";
import type { Repo, RepoArgs, RepoInputs, RepoOutputs } from "./repo";
import type { Role, RoleArgs, RoleInputs, RoleOutputs } from "./role";
import type { RoleBinding, RoleBindingArgs, RoleBindingInputs, RoleBindingOutputs } from "./roleBinding";
import type { Subscription, SubscriptionArgs, SubscriptionInputs, SubscriptionOutputs } from "./subscription";
import type { Tag, TagArgs, TagInputs, TagOutputs } from "./tag";

import type { Drift, ExpectNone, KnownKeys } from "../typeTies";

export type { Drift, Equal, ExpectNone, KnownKeys } from "../typeTies";
/** The keys of a resource class's `Output` properties, less the engine's own (`urn`, `id`). */
export type OutputKeys<R> = Exclude<{ [K in keyof R]-?: R[K] extends pulumi.Output<unknown> ? K : never }[keyof R] & string, "urn" | "id">;


/**
 * The keys by which `XArgs` differs from the declared fields (`XInputs`' keys), less those the program never gives
 * (`NotArgs`, e.g. a group's `deleteTimeoutSeconds`, taken from `customTimeouts`): `never` when in step.
 */
export type ArgsDrift<Args, Inputs, NotArgs extends string = never> = Drift<keyof Args & string, Exclude<KnownKeys<Inputs>, NotArgs>>;
/**
 * The keys by which the class's declared outputs differ from `XOutputs`', less `NotOutputs`: inputs read only at
 * create (`adoptUid`) or kept in state.
 */
export type OutputsDrift<R, Outputs, NotOutputs extends string = never> = Drift<OutputKeys<R>, Exclude<KnownKeys<Outputs>, NotOutputs>>;

/** Every kind's ties; a kind added to the registry adds its line. */
export type ResourceTies = [
  ExpectNone<ArgsDrift<GroupArgs, GroupInputs, "deleteTimeoutSeconds">>,
  ExpectNone<OutputsDrift<Group, GroupOutputs, "adoptUid" | "deleteTimeoutSeconds">>,
  ExpectNone<ArgsDrift<IdentityArgs, IdentityInputs>>,
  ExpectNone<OutputsDrift<Identity, IdentityOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<RoleArgs, RoleInputs>>,
  ExpectNone<OutputsDrift<Role, RoleOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<RoleBindingArgs, RoleBindingInputs>>,
  ExpectNone<OutputsDrift<RoleBinding, RoleBindingOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<IdentityProviderArgs, IdentityProviderInputs>>,
  ExpectNone<OutputsDrift<IdentityProvider, IdentityProviderOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<AccountAssociationArgs, AccountAssociationInputs>>,
  ExpectNone<OutputsDrift<AccountAssociation, AccountAssociationOutputs, "adopt">>,
  ExpectNone<ArgsDrift<GroupInviteArgs, GroupInviteInputs>>,
  ExpectNone<OutputsDrift<GroupInvite, GroupInviteOutputs, never>>,
  ExpectNone<ArgsDrift<RepoArgs, RepoInputs>>,
  ExpectNone<OutputsDrift<Repo, RepoOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<TagArgs, TagInputs>>,
  ExpectNone<OutputsDrift<Tag, TagOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<OverlayArgs, OverlayInputs>>,
  ExpectNone<OutputsDrift<Overlay, OverlayOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<OverlayBindingArgs, OverlayBindingInputs>>,
  ExpectNone<OutputsDrift<OverlayBinding, OverlayBindingOutputs, "adoptUid">>,
  ExpectNone<ArgsDrift<SubscriptionArgs, SubscriptionInputs>>,
  ExpectNone<OutputsDrift<Subscription, SubscriptionOutputs, "adoptUid">>,
];
