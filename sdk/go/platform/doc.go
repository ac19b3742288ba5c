// Pulumi resources for the Platform API v2: IAM, registry, events and vulnerabilities.
package platform
