import { z } from 'zod';
import type { ApiTags } from '../core/openapi';
import { operationsOf, type AnyOperation } from '../core/operations';
import { PICTURE_FILE_NAME, type Pictures, type UploadedPicture } from './pictures';

export const uploadedPictureSchema = z
  .object({
    imageUrl: z.string().url().meta({ description: '원본(최대 2560px, WebP) URL: imageUrls에 넣는 값' }),
    thumbnailUrl: z.string().url().meta({ description: '480px 썸네일 URL (목록의 imageUrl)' }),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
  })
  .meta({ id: 'UploadedPicture' }) satisfies z.ZodType<UploadedPicture>;

const uploadForm = z
  .object({ image: z.string().meta({ format: 'binary', description: 'JPEG, PNG, WebP, HEIC/AVIF 파일 하나 (최대 10MB)' }) })
  .meta({ id: 'PictureUploadForm' });

const pictureFileParams = z.object({
  file: z.string().regex(PICTURE_FILE_NAME).meta({ description: '<content hash>.webp 또는 <content hash>.thumb.webp' }),
});

export interface PictureOperationsOptions<Ctx> {
  /** Where the pictures are uploaded (`POST <path>`) and read (`GET <path>/{file}`), e.g. `/api/v1/houses/images`. */
  path: string;
  /** Names the operations: `House` -> `uploadHouseImage`, `getHouseImage`. */
  operationPrefix: string;
  /** What the pictures are of, in the summaries (`빈집`). */
  what: string;
  /** The service's pictures, from the operations' context. */
  pictures: (ctx: Ctx) => Pictures;
}

/** The tag of the picture operations, with its description: a service mounting them adds it to its `apiTags`. */
export const PICTURE_TAGS: ApiTags = {
  pictures: '사진 올리기 (게시글과 매물 본문의 이미지)와 사진 파일',
};

/** The upload and the read of one service's pictures, for its operation list. */
export function pictureOperations<Ctx>(options: PictureOperationsOptions<Ctx>): AnyOperation<Ctx>[] {
  const operation = operationsOf<Ctx>();
  const tags = Object.keys(PICTURE_TAGS);
  return [
    operation({
      method: 'post',
      path: options.path,
      operationId: `upload${options.operationPrefix}Image`,
      summary: `${options.what} 사진 올리기`,
      description:
        '파일 하나를 multipart/form-data로 보냅니다(필드 이름은 자유). 이미지로 해독되는 파일만 받고, 메타데이터(EXIF, GPS 등)를 모두 지운 WebP로 ' +
        '다시 저장합니다(긴 변 최대 2560px, 썸네일 480px). 같은 파일은 같은 URL이 됩니다. 회원당 시간당 올리기 횟수가 제한됩니다(C0004).',
      tags,
      access: 'user',
      body: uploadForm,
      bodyContentType: 'multipart/form-data',
      data: uploadedPictureSchema,
      errors: ['C0002', 'C0004'],
      handle: (ctx, { caller, req }) => options.pictures(ctx).upload(caller, req),
    }),
    operation({
      method: 'get',
      path: `${options.path}/{file}`,
      operationId: `get${options.operationPrefix}Image`,
      summary: `${options.what} 사진 파일 (원본 또는 썸네일)`,
      description: '내용 해시로 이름 지은 변하지 않는 파일: Cache-Control: public, max-age=31536000, immutable 과 ETag (If-None-Match -> 304).',
      tags,
      access: 'public',
      params: pictureFileParams,
      malformedPathNotFound: true,
      successResponses: {
        200: { description: 'WebP 이미지', content: { 'image/webp': { schema: z.string().meta({ format: 'binary' }) } } },
        304: { description: '변경 없음 (If-None-Match)' },
      },
      errors: ['C0001'],
      handle: (ctx, { params, req, res }) => options.pictures(ctx).serve(params.file, req, res),
    }),
  ];
}
