import { applyDecorators, HttpCode, Post } from '@nestjs/common';

/** A POST route that answers 200 on success, as every JSON Ledger API endpoint does (Nest's default would be 201). */
export const PostJson = (path?: string | string[]) => applyDecorators(Post(path), HttpCode(200));
