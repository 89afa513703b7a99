"""An S3-compatible server for the tests and the benchmark: moto's server mode with its IAM
authentication on, so every request's SigV4 signature is checked against the secret of an
access key moto knows (a wrong secret gets 403 SignatureDoesNotMatch, an unknown key 403
InvalidAccessKeyId, a wrong session token 400 InvalidToken).

Binds 127.0.0.1 port 0, makes an IAM user with an access key allowed everything, a role the
user assumes (temporary credentials with a session token), then turns authentication on
(moto's /moto-api/reset-auth with 0 unauthenticated actions left) and prints one JSON line:
{"endpoint", "accessKeyID", "secretAccessKey", "sessionAccessKeyID", "sessionSecretAccessKey",
"sessionToken"}. Then it reads commands on standard input, one a line, and answers one line each:

  {"bucket": B, "key": K, "path": P}    the bytes of file P as object K of bucket B (made if
                                        missing): "ok ETAG"

and stops at the end of its input (the test process went away), never outliving its test.
"""
import json
import sys
import urllib.request

import boto3
from moto.moto_server.threaded_moto_server import ThreadedMotoServer

ALLOW_ALL = json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def main() -> None:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boot = dict(endpoint_url=endpoint, region_name="us-east-1",
                aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
    iam = boto3.client("iam", **boot)
    iam.create_user(UserName="fdl")
    key = iam.create_access_key(UserName="fdl")["AccessKey"]
    iam.put_user_policy(UserName="fdl", PolicyName="all", PolicyDocument=ALLOW_ALL)
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="fdl-role", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    iam.put_role_policy(RoleName="fdl-role", PolicyName="all", PolicyDocument=ALLOW_ALL)
    signed = dict(endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    session = boto3.client("sts", **signed).assume_role(
        RoleArn=role["Arn"], RoleSessionName="fdl-session")["Credentials"]
    request = urllib.request.Request(endpoint + "/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(request).read()
    s3 = boto3.client("s3", **signed)
    print(json.dumps({
        "endpoint": endpoint,
        "accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"],
        "sessionAccessKeyID": session["AccessKeyId"], "sessionSecretAccessKey": session["SecretAccessKey"],
        "sessionToken": session["SessionToken"],
    }), flush=True)
    buckets = set()
    for line in sys.stdin:
        try:
            command = json.loads(line)
            bucket, name, path = command["bucket"], command["key"], command["path"]
            if bucket not in buckets:
                try:
                    s3.create_bucket(Bucket=bucket)
                except s3.exceptions.BucketAlreadyOwnedByYou:
                    pass
                buckets.add(bucket)
            with open(path, "rb") as body:
                etag = s3.put_object(Bucket=bucket, Key=name, Body=body)["ETag"]
            print(f"ok {etag}", flush=True)
        except Exception as error:  # the test reads the reason instead of waiting
            print(f"error {error!r}".replace("\n", " "), flush=True)
    server.stop()


if __name__ == "__main__":
    main()
